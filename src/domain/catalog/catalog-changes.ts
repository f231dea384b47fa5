/**
 * Changing the catalog after it is on sale (issue #12 item 4): an event's title, times and venue, or its
 * cancellation; a tier's name, price and six restrictions, or its retirement; a pool's capacity. Each change
 * commits with its webhook event (the outbox), and none can break `availableCount + held + sold = capacity`:
 * a capacity change is one conditional update on the pool row, the row every reserve also updates, so it can
 * never go below what is held and sold at that instant. A new price applies to new quotes only: a quote, and the
 * hold made from it, keep the price they were given.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { Event, Pool, Tier, type EventRow, type PoolRow, type TierRow } from '../../storage/entities/catalog.ts';
import { sql } from '../../storage/database.ts';
import { emitEvent } from '../../webhooks/outbox.ts';
import { requireShop } from './access.ts';
import { refuseInvertedOnSaleWindow } from './restrictions.ts';
import { requireTimeZone } from './time-zone.ts';
import { eventOut, poolOut, tierOut } from './serialize.ts';
import { checkAttendeeForm } from './attendee-form.ts';
import type { AttendeeFormRow } from '../../storage/attendee-rows.ts';

type Ctx = Pick<ToolContext, 'em' | 'principal' | 'clock'>;

async function ownEvent({ em, principal }: Ctx, id: string): Promise<EventRow> {
  const event = await em.findOne(Event, { id });
  if (!event) throw new ToolError('not_found', `No event ${id}.`, { eventId: id });
  await requireShop(em, principal, event.shopId).catch(() => {
    throw new ToolError('not_found', `No event ${id}.`, { eventId: id });
  });
  return event;
}

async function ownTier({ em, principal }: Ctx, id: string): Promise<TierRow> {
  const tier = await em.findOne(Tier, { id });
  if (!tier) throw new ToolError('not_found', `No tier ${id}.`, { tierId: id });
  await requireShop(em, principal, tier.shopId).catch(() => {
    throw new ToolError('not_found', `No tier ${id}.`, { tierId: id });
  });
  return tier;
}

async function ownPool({ em, principal }: Ctx, id: string): Promise<PoolRow> {
  const pool = await em.findOne(Pool, { id });
  if (!pool) throw new ToolError('not_found', `No pool ${id}.`, { poolId: id });
  await requireShop(em, principal, pool.shopId).catch(() => {
    throw new ToolError('not_found', `No pool ${id}.`, { poolId: id });
  });
  return pool;
}

function refuseCancelled(event: EventRow): void {
  if (event.cancelledAt)
    throw new ToolError('event_cancelled', undefined, {
      eventId: event.id,
      cancelledAt: event.cancelledAt.toISOString(),
    });
}

function refuseRetired(tier: TierRow): void {
  if (tier.retiredAt)
    throw new ToolError('tier_retired', undefined, { tierId: tier.id, retiredAt: tier.retiredAt.toISOString() });
}

/** Refuses a purchase of a tier whose event was cancelled or which was retired (at quote and again at reserve). */
export async function checkTierStillOffered(em: EntityManager, tier: TierRow): Promise<void> {
  checkTierOffered(tier, tier.retiredAt ? undefined : await em.findOne(Event, { id: tier.eventId })); // a retired tier needs no read
}

/** The same check when the tier's event is already read (the reserve batch reads it with the quotes). */
export function checkTierOffered(tier: TierRow, event: EventRow | null | undefined): void {
  refuseRetired(tier);
  if (event) refuseCancelled(event);
}

export interface EventChanges {
  title?: string | undefined;
  venue?: string | null | undefined;
  startsAt?: string | undefined;
  endsAt?: string | null | undefined;
  timeZone?: string | undefined;
}

/** Changes an event's title, venue, times or time zone (it must still end after it starts); emits `event.updated`. */
export async function updateEvent(ctx: Ctx, id: string, changes: EventChanges): Promise<EventRow> {
  const event = await ownEvent(ctx, id);
  refuseCancelled(event);
  const startsAt = changes.startsAt !== undefined ? new Date(changes.startsAt) : event.startsAt;
  const endsAt =
    changes.endsAt !== undefined ? (changes.endsAt === null ? null : new Date(changes.endsAt)) : event.endsAt;
  if (endsAt && endsAt <= startsAt)
    throw new ToolError('invalid_input', 'endsAt must be after startsAt.', {
      field: changes.endsAt !== undefined ? 'endsAt' : 'startsAt',
    });
  if (changes.title !== undefined) event.title = changes.title;
  if (changes.venue !== undefined) event.venue = changes.venue;
  if (changes.timeZone !== undefined) event.timeZone = requireTimeZone(changes.timeZone);
  event.startsAt = startsAt;
  event.endsAt = endsAt;
  const now = ctx.clock.now();
  event.updatedAt = now;
  await ctx.em.flush();
  await emitEvent(ctx.em, {
    shopId: event.shopId,
    type: 'event.updated',
    data: { event: eventOut(event), changed: Object.keys(changes) },
    now,
  });
  return event;
}

/**
 * Cancels an event: its tiers can no longer be quoted or reserved (`event_cancelled`) and it leaves the public
 * window. Holds already made stay until released or expired; tickets sold stay sold (refunds are the merchant's
 * call). Emits `event.cancelled`.
 */
export async function cancelEvent(ctx: Ctx, id: string, reason: string | undefined): Promise<EventRow> {
  const event = await ownEvent(ctx, id);
  refuseCancelled(event);
  const now = ctx.clock.now();
  event.cancelledAt = now;
  event.updatedAt = now;
  await ctx.em.flush();
  await emitEvent(ctx.em, {
    shopId: event.shopId,
    type: 'event.cancelled',
    data: { event: eventOut(event), reason: reason ?? null },
    now,
  });
  return event;
}

export interface TierChanges {
  name?: string | undefined;
  priceMinor?: number | undefined;
  onSaleStart?: string | null | undefined;
  onSaleEnd?: string | null | undefined;
  maxQtyPerPurchase?: number | null | undefined;
  sellable?: boolean | undefined;
  allowedGeos?: string[] | undefined;
  allowedSchemes?: string[] | undefined;
  attendeeForm?: AttendeeFormRow | null | undefined;
}

/** Changes a tier's name, price (new quotes only) or restrictions; emits `tier.updated`. */
export async function updateTier(
  ctx: Ctx,
  id: string,
  changes: TierChanges,
): Promise<{ tier: TierRow; availableCount: number }> {
  const tier = await ownTier(ctx, id);
  refuseRetired(tier);
  const start = changes.onSaleStart !== undefined ? changes.onSaleStart : tier.onSaleStart;
  const end = changes.onSaleEnd !== undefined ? changes.onSaleEnd : tier.onSaleEnd;
  refuseInvertedOnSaleWindow(start, end, changes.onSaleEnd !== undefined ? 'onSaleEnd' : 'onSaleStart');
  if (changes.name !== undefined) tier.name = changes.name;
  if (changes.priceMinor !== undefined) tier.priceMinor = changes.priceMinor;
  if (changes.onSaleStart !== undefined) tier.onSaleStart = changes.onSaleStart ? new Date(changes.onSaleStart) : null;
  if (changes.onSaleEnd !== undefined) tier.onSaleEnd = changes.onSaleEnd ? new Date(changes.onSaleEnd) : null;
  if (changes.maxQtyPerPurchase !== undefined) tier.maxQtyPerPurchase = changes.maxQtyPerPurchase;
  if (changes.sellable !== undefined) tier.sellable = changes.sellable;
  if (changes.allowedGeos !== undefined) tier.allowedGeos = [...new Set(changes.allowedGeos)];
  if (changes.allowedSchemes !== undefined) tier.allowedSchemes = [...new Set(changes.allowedSchemes)];
  if (changes.attendeeForm !== undefined) tier.attendeeForm = checkAttendeeForm(changes.attendeeForm);
  const now = ctx.clock.now();
  tier.updatedAt = now;
  await ctx.em.flush();
  const availableCount = await poolAvailable(ctx.em, tier.poolId);
  await emitEvent(ctx.em, {
    shopId: tier.shopId,
    type: 'tier.updated',
    data: { tier: tierOut(tier, availableCount), changed: Object.keys(changes) },
    now,
  });
  return { tier, availableCount };
}

/**
 * Retires a tier for good: no new quote or reserve (`tier_retired`), gone from the public window; emits `tier.retired`.
 */
export async function retireTier(ctx: Ctx, id: string): Promise<{ tier: TierRow; availableCount: number }> {
  const tier = await ownTier(ctx, id);
  refuseRetired(tier);
  const now = ctx.clock.now();
  tier.retiredAt = now;
  tier.updatedAt = now;
  await ctx.em.flush();
  const availableCount = await poolAvailable(ctx.em, tier.poolId);
  await emitEvent(ctx.em, {
    shopId: tier.shopId,
    type: 'tier.retired',
    data: { tier: tierOut(tier, availableCount) },
    now,
  });
  return { tier, availableCount };
}

async function poolAvailable(em: EntityManager, poolId: string): Promise<number> {
  const [row] = await sql<{ available_count: number }>(em, 'select available_count from pools where id = ?', [poolId]);
  return row?.available_count ?? 0;
}

/**
 * Sets a pool's capacity. One conditional update moves capacity and `availableCount` by the same amount, and only
 * while the new capacity still covers what is held and sold (`capacity - availableCount`); otherwise
 * `capacity_below_committed` with the numbers. Emits `pool.updated`.
 */
export async function changePoolCapacity(ctx: Ctx, id: string, capacity: number): Promise<PoolRow> {
  const pool = await ownPool(ctx, id);
  const rows = await sql<{ capacity: number; available_count: number }>(
    ctx.em,
    `update pools set available_count = available_count + (?::int - capacity), capacity = ?::int
      where id = ? and available_count + (?::int - capacity) >= 0
      returning capacity, available_count`,
    [capacity, capacity, pool.id, capacity],
  );
  const row = rows[0];
  if (!row) {
    const [c] = await sql<{ held: string; sold: string }>(
      ctx.em,
      `select coalesce(sum(quantity) filter (where state in ('held', 'confirming')), 0) as held,
              coalesce(sum(quantity) filter (where state = 'completed'), 0) as sold
         from reservation_pool_lines where pool_id = ?`,
      [pool.id],
    );
    const held = Number(c?.held ?? 0);
    const sold = Number(c?.sold ?? 0);
    throw new ToolError(
      'capacity_below_committed',
      `Capacity ${capacity} is below the ${held} place(s) held and ${sold} sold; the smallest capacity now is ${held + sold}.`,
      { requested: capacity, held, sold, minimum: held + sold },
    );
  }
  await ctx.em.refresh(pool);
  const now = ctx.clock.now();
  await emitEvent(ctx.em, { shopId: pool.shopId, type: 'pool.updated', data: { pool: poolOut(pool) }, now });
  return pool;
}
