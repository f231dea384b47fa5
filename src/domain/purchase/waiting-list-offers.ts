/**
 * Waiting-list offers: when places come back to a pool (a released or expired hold, a refund with `returnToPool`, a
 * raised capacity), the next in line gets them as a real hold, in the same transaction that freed them, so a racing new
 * buyer never sees them. The next entry is claimed with FOR UPDATE SKIP LOCKED, so several processes never offer one
 * entry twice; when no one waits this costs one indexed statement. An unanswered offer expires with its hold (the
 * sweeper), whose places then come back here for the next in line.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Quote, Reservation } from '../../storage/entities/purchase.ts';
import { sql } from '../../storage/database.ts';
import { newId } from '../../storage/ids.ts';
import { insertPlainRow } from '../../storage/plain-rows.ts';
import { takePlaces } from './inventory.ts';

/** How long an offer holds its places when the tier sets nothing. */
export const DEFAULT_OFFER_MINUTES = 30;
/** At most this many offers are made per freeing (places for more wait for the next freeing). */
const MAX_OFFERS_PER_FREEING = 50;

interface NextInLine {
  id: string;
  shop_id: string;
  organization_id: string;
  event_id: string;
  tier_id: string;
  pool_id: string;
  owner_key: string;
  buyer_id: string | null;
  quantity: number;
  price_minor: number;
  currency: string;
  offer_minutes: number | null;
  fee_per_ticket_minor: number;
}

/**
 * Offers a pool's free places to those waiting for them, first joined first, inside the caller's transaction (which has
 * just given the places back). An entry is skipped while its quantity does not fit what is free, so a smaller request
 * further back may be served; entries of tiers whose list is off, retired or off sale, or of cancelled events wait.
 * Returns the ids of the offers' reservations.
 */
export async function offerFreedPlaces(em: EntityManager, poolId: string, now: Date): Promise<string[]> {
  const offered: string[] = [];
  for (let i = 0; i < MAX_OFFERS_PER_FREEING; i++) {
    const [next] = await sql<NextInLine>(
      em,
      `select w.id, w.shop_id, w.organization_id, w.event_id, w.tier_id, w.pool_id, w.owner_key, w.buyer_id, w.quantity,
              t.price_minor, t.currency, t.waiting_list_offer_minutes as offer_minutes, s.fee_per_ticket_minor
         from waiting_list_entries w
         join pools p on p.id = w.pool_id
         join tiers t on t.id = w.tier_id and t.waiting_list and t.sellable and t.retired_at is null
                     and (t.on_sale_end is null or t.on_sale_end > ?)
         join shops s on s.id = w.shop_id and s.deleted_at is null
         join events e on e.id = w.event_id and e.cancelled_at is null
        where w.pool_id = ? and w.state = 'waiting' and w.quantity <= p.available_count
        order by w.line_no
        limit 1
          for update of w skip locked`,
      [now, poolId],
    );
    if (!next) break;
    if ((await takePlaces(em, poolId, next.quantity)) === null) break;
    offered.push(await writeOffer(em, next, now));
  }
  return offered;
}

/** Writes the offer's used quote and its hold (the places are taken) and marks the entry offered. */
async function writeOffer(em: EntityManager, w: NextInLine, now: Date): Promise<string> {
  const feesMinor = w.fee_per_ticket_minor * w.quantity;
  // A single-tier quote, already used by its hold (columns not named here are written null).
  const quote = {
    id: newId('quote', now),
    shopId: w.shop_id,
    organizationId: w.organization_id,
    ownerKey: w.owner_key,
    buyerId: w.buyer_id,
    eventId: w.event_id,
    tierId: w.tier_id,
    poolId: w.pool_id,
    quantity: w.quantity,
    country: null,
    scheme: null,
    unitPriceMinor: w.price_minor,
    feesMinor,
    totalMinor: w.price_minor * w.quantity + feesMinor,
    currency: w.currency,
    reservationId: null as string | null,
    expiresAt: now,
    createdAt: now,
  };
  const expiresAt = new Date(now.getTime() + (w.offer_minutes ?? DEFAULT_OFFER_MINUTES) * 60_000);
  // As the reserve's holdOf writes a hold (here held for the offer's time): the quote's owner and priced line; the
  // quote-only fields are not reservation columns, so they are not written.
  const hold = {
    ...quote,
    id: newId('reservation', now),
    quoteId: quote.id,
    state: 'held',
    releaseReason: null,
    holdExpiresAt: expiresAt,
    expiresAt,
    paymentDeadline: null,
    createdAt: now,
    updatedAt: now,
    completedAt: null,
    releasedAt: null,
    returnedCount: 0,
  };
  quote.reservationId = hold.id;
  await insertPlainRow(em, Quote, quote);
  await insertPlainRow(em, Reservation, hold);
  await sql(
    em,
    `update waiting_list_entries set state = 'offered', reservation_id = ?, offered_at = ?, updated_at = ? where id = ?`,
    [hold.id, now, now, w.id],
  );
  return hold.id;
}

/** `offerFreedPlaces` for each pool of a hold (a multi-line hold's every line's pool, in id order; else its pool). */
export async function offerFreedPlacesOf(
  em: EntityManager,
  r: { poolId: string; lines?: readonly { poolId: string }[] | null },
  now: Date,
): Promise<void> {
  const pools = r.lines?.length ? [...new Set(r.lines.map((l) => l.poolId))].sort() : [r.poolId];
  for (const poolId of pools) await offerFreedPlaces(em, poolId, now);
}
