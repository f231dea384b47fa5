/**
 * The catalog's rules: shops, events, pools and tiers, who may create them and what makes one valid. A pool
 * starts with `availableCount = capacity`; a tier sells from a pool of its own event, in its shop's currency.
 */
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { organizationOf } from '../../kernel/principal.ts';
import {
  Event,
  Pool,
  Shop,
  Tier,
  type EventRow,
  type PoolRow,
  type ShopRow,
  type TierRow,
} from '../../storage/entities/catalog.ts';
import { newId } from '../../storage/ids.ts';
import { requireShop } from './access.ts';
import { refuseInvertedOnSaleWindow } from './restrictions.ts';
import { requireTimeZone } from './time-zone.ts';
import { checkAttendeeForm } from './attendee-form.ts';
import type { AttendeeFormRow } from '../../storage/attendee-rows.ts';
import { lockCaps, MAX_POOLS_PER_EVENT, MAX_TIERS_PER_EVENT, refuseAtLimit } from '../limits.ts';

type Ctx = Pick<ToolContext, 'em' | 'principal' | 'clock'>;

export interface NewShop {
  name: string;
  description?: string | undefined;
  currency: string;
  holdMinutes?: number | undefined;
  feePerTicketMinor?: number | undefined;
  discoverable?: boolean | undefined;
}

/** A shop in the caller's organization, selling through the sandbox provider until another is linked. */
export async function createShop({ em, principal, clock }: Ctx, input: NewShop): Promise<ShopRow> {
  const organizationId = organizationOf(principal);
  if (!organizationId) throw new ToolError('forbidden');
  const shop = em.create(Shop, {
    id: newId('shop'),
    organizationId,
    name: input.name,
    description: input.description ?? null,
    currency: input.currency,
    holdMinutes: input.holdMinutes ?? 10,
    feePerTicketMinor: input.feePerTicketMinor ?? 0,
    discoverable: input.discoverable ?? false,
    embedOrigins: [],
    paymentProvider: 'sandbox',
    createdAt: clock.now(),
    deletedAt: null,
  });
  await em.flush();
  return shop;
}

/** The caller's organization's live shops (deleted ones are gone from every read), in id order. */
export async function listShops({ em, principal }: Pick<Ctx, 'em' | 'principal'>): Promise<ShopRow[]> {
  const organizationId = organizationOf(principal);
  if (!organizationId) throw new ToolError('forbidden');
  return em.find(Shop, { organizationId, deletedAt: null }, { orderBy: { id: 'asc' }, limit: MAX_SHOPS_LISTED });
}

/** The most shops `listShops` answers (an organization runs a handful; the list is not paged). */
export const MAX_SHOPS_LISTED = 500;

export interface NewEvent {
  merchantId: string;
  title: string;
  venue?: string | undefined;
  startsAt: string;
  endsAt?: string | undefined;
  timeZone?: string | undefined;
}

/** An event in a shop the caller may act on; it must end after it starts. */
export async function createEvent({ em, principal, clock }: Ctx, input: NewEvent): Promise<EventRow> {
  await requireShop(em, principal, input.merchantId);
  if (input.endsAt && new Date(input.endsAt) <= new Date(input.startsAt)) {
    throw new ToolError('invalid_input', 'endsAt must be after startsAt.', { field: 'endsAt' });
  }
  const timeZone = input.timeZone === undefined ? 'UTC' : requireTimeZone(input.timeZone);
  const event = em.create(Event, {
    id: newId('event'),
    shopId: input.merchantId,
    title: input.title,
    venue: input.venue ?? null,
    startsAt: new Date(input.startsAt),
    endsAt: input.endsAt ? new Date(input.endsAt) : null,
    timeZone,
    createdAt: clock.now(),
  });
  await em.flush();
  return event;
}

/** A page of a shop's events in id order, and the cursor of the next page when there is one. */
export async function listEvents(
  { em, principal }: Ctx,
  input: { shopId: string; limit: number; cursor?: string | undefined },
): Promise<{ events: EventRow[]; nextCursor?: string }> {
  await requireShop(em, principal, input.shopId);
  const where = input.cursor ? { shopId: input.shopId, id: { $gt: input.cursor } } : { shopId: input.shopId };
  const rows = await em.find(Event, where, { orderBy: { id: 'asc' }, limit: input.limit + 1 });
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  return { events: page, ...(rows.length > input.limit && last ? { nextCursor: last.id } : {}) };
}

/** An event the caller may see with its tiers, each with its pool's live availability; otherwise `not_found`. */
export async function getEventWithTiers(
  { em, principal }: Ctx,
  id: string,
): Promise<{ event: EventRow; tiers: { tier: TierRow; availableCount: number }[] }> {
  const event = await em.findOne(Event, { id });
  if (!event) throw new ToolError('not_found', `No event ${id}.`, { eventId: id });
  await requireShop(em, principal, event.shopId).catch(() => {
    throw new ToolError('not_found', `No event ${id}.`, { eventId: id });
  });
  const tiers = await em.find(Tier, { eventId: id }, { orderBy: { id: 'asc' } });
  const pools = await em.find(Pool, { id: { $in: [...new Set(tiers.map((t) => t.poolId))] } });
  const available = new Map(pools.map((p) => [p.id, p.availableCount]));
  return { event, tiers: tiers.map((tier) => ({ tier, availableCount: available.get(tier.poolId) ?? 0 })) };
}

export interface NewPool {
  merchantId: string;
  eventId?: string | undefined;
  title?: string | undefined;
  capacity: number;
  authority?: string | undefined;
}

/** A pool whose `availableCount` starts equal to its capacity, optionally tied to an event of the same shop. */
export async function createPool({ em, principal, clock }: Ctx, input: NewPool): Promise<PoolRow> {
  await requireShop(em, principal, input.merchantId);
  if (input.eventId) {
    const event = await em.findOne(Event, { id: input.eventId, shopId: input.merchantId });
    if (!event) throw new ToolError('not_found', `No event ${input.eventId} in this shop.`, { eventId: input.eventId });
    await lockCaps(em, event.id);
    refuseAtLimit(await em.count(Pool, { eventId: event.id }), MAX_POOLS_PER_EVENT, 'pools_per_event');
  }
  const pool = em.create(Pool, {
    id: newId('pool'),
    shopId: input.merchantId,
    eventId: input.eventId ?? null,
    title: input.title ?? null,
    capacity: input.capacity,
    availableCount: input.capacity,
    authority: input.authority ?? 'tessera',
    createdAt: clock.now(),
  });
  await em.flush();
  return pool;
}

/** A shop's pools with their live `availableCount`, in id order. */
/**
 * A page of a shop's pools in id order (keyset on (shop_id, id)), and the cursor of the next page when there is one.
 */
export async function listPools(
  { em, principal }: Ctx,
  input: { shopId: string; limit: number; cursor?: string | undefined },
): Promise<{ pools: PoolRow[]; nextCursor?: string }> {
  await requireShop(em, principal, input.shopId);
  const where = input.cursor ? { shopId: input.shopId, id: { $gt: input.cursor } } : { shopId: input.shopId };
  const rows = await em.find(Pool, where, { orderBy: { id: 'asc' }, limit: input.limit + 1 });
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  return { pools: page, ...(rows.length > input.limit && last ? { nextCursor: last.id } : {}) };
}

export interface NewTier {
  eventId: string;
  poolId: string;
  name: string;
  priceMinor: number;
  currency?: string | undefined;
  onSaleStart?: string | null | undefined;
  onSaleEnd?: string | null | undefined;
  maxQtyPerPurchase?: number | null | undefined;
  sellable?: boolean | undefined;
  allowedGeos?: string[] | undefined;
  allowedSchemes?: string[] | undefined;
  attendeeForm?: AttendeeFormRow | null | undefined;
}

/** A tier with its six restriction fields saved in the same write (spec §4.2), and its pool's live availability. */
export async function createTier(
  { em, principal, clock }: Ctx,
  input: NewTier,
): Promise<{ tier: TierRow; availableCount: number }> {
  const event = await em.findOne(Event, { id: input.eventId });
  if (!event) throw new ToolError('not_found', `No event ${input.eventId}.`, { eventId: input.eventId });
  const shop = await requireShop(em, principal, event.shopId);
  const pool = await em.findOne(Pool, { id: input.poolId, shopId: shop.id });
  if (!pool) throw new ToolError('not_found', `No pool ${input.poolId} in this shop.`, { poolId: input.poolId });
  if (pool.eventId && pool.eventId !== event.id) {
    throw new ToolError('invalid_input', 'The pool belongs to another event.', { field: 'poolId' });
  }
  if (input.currency && input.currency !== shop.currency) {
    throw new ToolError('invalid_input', `Tiers are priced in the shop currency ${shop.currency}.`, {
      field: 'currency',
    });
  }
  refuseInvertedOnSaleWindow(input.onSaleStart, input.onSaleEnd);
  await lockCaps(em, event.id);
  refuseAtLimit(await em.count(Tier, { eventId: event.id }), MAX_TIERS_PER_EVENT, 'tiers_per_event');
  const tier = em.create(Tier, {
    id: newId('tier'),
    shopId: shop.id,
    eventId: event.id,
    poolId: pool.id,
    name: input.name,
    priceMinor: input.priceMinor,
    currency: shop.currency,
    onSaleStart: input.onSaleStart ? new Date(input.onSaleStart) : null,
    onSaleEnd: input.onSaleEnd ? new Date(input.onSaleEnd) : null,
    maxQtyPerPurchase: input.maxQtyPerPurchase ?? null,
    sellable: input.sellable ?? true,
    allowedGeos: [...new Set(input.allowedGeos ?? [])],
    allowedSchemes: [...new Set(input.allowedSchemes ?? [])],
    attendeeForm: checkAttendeeForm(input.attendeeForm ?? null),
    createdAt: clock.now(),
  });
  await em.flush();
  return { tier, availableCount: pool.availableCount };
}
