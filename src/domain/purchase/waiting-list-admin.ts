/** The merchant's side of waiting lists: the list of a tier or event in line order, and a tier's list on or off. */
import { Event, Tier, type PoolRow, type TierRow } from '../../storage/entities/catalog.ts';
import { sql } from '../../storage/database.ts';
import { ToolError } from '../../kernel/errors.ts';
import { iso } from '../../kernel/wire.ts';
import { requireShop } from '../catalog/access.ts';
import { changePoolCapacity } from '../catalog/catalog-changes.ts';
import type { ToolContext } from '../context.ts';
import { offerFreedPlaces, DEFAULT_OFFER_MINUTES } from './waiting-list-offers.ts';
import { entryView, ENTRY_SELECT, type EntryRow, type EntryView, type WaitingListState } from './waiting-list-view.ts';

type Ctx = Pick<ToolContext, 'em' | 'principal' | 'clock'>;

export interface ListInput {
  tierId?: string | undefined;
  eventId?: string | undefined;
  state?: WaitingListState | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** A tier the merchant may manage, else `not_found`. */
async function ownTier({ em, principal }: Ctx, id: string): Promise<TierRow> {
  const tier = await em.findOne(Tier, { id });
  if (!tier) throw new ToolError('not_found', `No tier ${id}.`, { tierId: id });
  await requireShop(em, principal, tier.shopId).catch(() => {
    throw new ToolError('not_found', `No tier ${id}.`, { tierId: id });
  });
  return tier;
}

/** A page's cursor: the line number of its last entry. */
function parseCursor(cursor: string): number {
  if (!/^\d{1,18}$/.test(cursor)) throw new ToolError('invalid_input', 'The cursor is not valid.', { field: 'cursor' });
  return Number(cursor);
}

/**
 * A tier's or an event's waiting list in line order (first joined first), with each waiting entry's position in its
 * tier's line and each entry's state; filtered by `state`, paged by `cursor`.
 */
export async function listWaitingList(
  ctx: Ctx,
  input: ListInput,
): Promise<{ entries: EntryView[]; nextCursor?: string }> {
  const { em, principal } = ctx;
  const where: string[] = [];
  const params: unknown[] = [];
  if (!input.tierId && !input.eventId) {
    // No filter: every list of the caller's organization (merchant principals only reach this tool).
    if (principal.kind !== 'api_key' && principal.kind !== 'console_user') return { entries: [] };
    where.push('w.organization_id = ?');
    params.push(principal.organizationId);
  }
  if (input.tierId) {
    await ownTier(ctx, input.tierId);
    where.push('w.tier_id = ?');
    params.push(input.tierId);
  }
  if (input.eventId) {
    const event = await em.findOne(Event, { id: input.eventId });
    const notFound = new ToolError('not_found', `No event ${input.eventId}.`, { eventId: input.eventId });
    if (!event) throw notFound;
    await requireShop(em, principal, event.shopId).catch(() => {
      throw notFound;
    });
    where.push('w.event_id = ?');
    params.push(input.eventId);
  }
  if (input.cursor) {
    where.push('w.line_no > ?');
    params.push(parseCursor(input.cursor));
  }
  const filtered = input.state
    ? `select * from (${ENTRY_SELECT} where ${where.join(' and ')}) e where e.state = ?`
    : '';
  if (input.state) params.push(input.state);
  const text = filtered || `${ENTRY_SELECT} where ${where.join(' and ')}`;
  const rows = await sql<EntryRow>(em, `${text} order by line_no limit ${input.limit + 1}`, params);
  const page = rows.slice(0, input.limit);
  return {
    entries: page.map((r) => entryView(r, true)),
    ...(rows.length > input.limit ? { nextCursor: String(page[page.length - 1]!.line_no) } : {}),
  };
}

export interface WaitingListSettings {
  tierId: string;
  enabled: boolean;
  offerMinutes: number;
  waiting: number;
  updatedAt: string;
}

/**
 * Turns a tier's waiting list on or off and sets how long an offer holds places (`offerMinutes`; null: the default).
 * Turning it on offers places already free to those waiting. Entries stay when it is turned off; they get no offers.
 */
export async function setWaitingList(
  ctx: Ctx,
  tierId: string,
  changes: { enabled?: boolean | undefined; offerMinutes?: number | null | undefined },
): Promise<WaitingListSettings> {
  const { em, clock } = ctx;
  const now = clock.now();
  const tier = await ownTier(ctx, tierId);
  if (changes.enabled !== undefined) tier.waitingList = changes.enabled;
  if (changes.offerMinutes !== undefined) tier.waitingListOfferMinutes = changes.offerMinutes;
  tier.updatedAt = now;
  await em.flush();
  if (tier.waitingList) await offerFreedPlaces(em, tier.poolId, now);
  const [count] = await sql<{ n: string }>(
    em,
    `select count(*) as n from waiting_list_entries where tier_id = ? and state = 'waiting'`,
    [tier.id],
  );
  return {
    tierId: tier.id,
    enabled: tier.waitingList,
    offerMinutes: tier.waitingListOfferMinutes ?? DEFAULT_OFFER_MINUTES,
    waiting: Number(count?.n ?? 0),
    updatedAt: iso(now),
  };
}

/**
 * Sets a pool's capacity (`changePoolCapacity`); places a raise frees go first to those waiting for the pool's tiers,
 * in the same transaction. The pool comes back as it stands after the offers.
 */
export async function changeCapacityOfferingFirst(ctx: Ctx, id: string, capacity: number): Promise<PoolRow> {
  const pool = await changePoolCapacity(ctx, id, capacity);
  if ((await offerFreedPlaces(ctx.em, pool.id, ctx.clock.now())).length) await ctx.em.refresh(pool);
  return pool;
}
