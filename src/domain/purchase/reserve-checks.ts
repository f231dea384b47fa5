/**
 * The reserve batch's per-call decisions (src/domain/purchase/reserve-batcher.ts): whether one call may reserve its
 * quote, from the rows the batch locked and read, and, when a pool is short, which calls get its places.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../../kernel/clock.ts';
import { ToolError } from '../../kernel/errors.ts';
import type { Principal } from '../../kernel/principal.ts';
import type { EventRow, ShopRow, TierRow } from '../../storage/entities/catalog.ts';
import type { QuoteRow } from '../../storage/entities/purchase.ts';
import type { LockedQuote } from '../../storage/reserve-batch.ts';
import { sql } from '../../storage/database.ts';
import { checkTierOffered } from '../catalog/catalog-changes.ts';
import { checkRestrictions } from '../catalog/restrictions.ts';
import { authorizePurchase, requireAccess } from './purchase-access.ts';

/** What the batch read, by id: its locked quotes, their tiers, live shops and events. */
export interface Offers {
  quotes: Map<string, QuoteRow>;
  tiers: Map<string, TierRow>;
  shops: Map<string, ShopRow>;
  events: Map<string, EventRow>;
}

export function offersOf(locked: readonly LockedQuote[]): Offers {
  const byId = <T extends { id: string }>(rows: (T | undefined)[]) => new Map(rows.flatMap((r) => (r ? [[r.id, r] as const] : [])));
  return {
    quotes: byId(locked.map((l) => l.quote)),
    tiers: byId(locked.map((l) => l.tier)),
    shops: byId(locked.map((l) => l.shop)),
    events: byId(locked.map((l) => l.event)),
  };
}

/**
 * Checks one call's reserve of `quoteId` by `principal`: access (another organization's quote is not found), single
 * use, expiry, restrictions, the tier still offered and its event not cancelled, the caller's authority (at the reserve
 * stage this only reads an agent's permission, caps and allowance). Throws the call's ToolError; returns the quote and
 * its shop. Use within the batch (the same quote twice) is the batcher's to decide.
 */
export async function checkReserve(
  ctx: { principal: Principal; em: EntityManager; clock: Clock },
  quoteId: string,
  offers: Offers,
  now: Date,
): Promise<{ quote: QuoteRow; shop: ShopRow }> {
  const quote = requireAccess(ctx.principal, offers.quotes.get(quoteId), 'quote', quoteId);
  const reservationId = quote.reservationId;
  if (reservationId) throw new ToolError('quote_already_used', undefined, { quoteId: quote.id, reservationId });
  if (quote.expiresAt <= now) throw new ToolError('quote_expired', undefined, { quoteId: quote.id, expiredAt: quote.expiresAt.toISOString() });
  const tier = offers.tiers.get(quote.tierId);
  const shop = offers.shops.get(quote.shopId);
  if (!tier || !shop) throw new ToolError('not_found', `No quote ${quote.id}.`, { id: quote.id });
  checkRestrictions(tier, quote, now);
  checkTierOffered(tier, offers.events.get(tier.eventId));
  await authorizePurchase(ctx, { shop, amountMinor: quote.totalMinor, currency: quote.currency, stage: 'reserve' });
  return { quote, shop };
}

/**
 * Locks each pool of `candidates` (in id order, FOR NO KEY UPDATE: the lock the conditional update takes, so quotes
 * and holds of the pool may still be inserted meanwhile) and grants places in arrival order while they last. Returns
 * the granted calls, the refused ones (`sold_out` with the live count) and the pools that served every candidate with
 * room to spare.
 */
export async function allotInArrivalOrder<C extends { index: number; quote: QuoteRow }>(
  em: EntityManager,
  candidates: readonly C[],
): Promise<{ granted: C[]; soldOut: { index: number; error: ToolError }[]; roomy: string[] }> {
  const poolIds = [...new Set(candidates.map((c) => c.quote.poolId))].sort();
  const left = new Map<string, number>();
  for (const poolId of poolIds) {
    const [row] = await sql<{ available_count: number }>(em, 'select available_count from pools where id = ? for no key update', [poolId]);
    left.set(poolId, row?.available_count ?? 0);
  }
  const granted: C[] = [];
  const soldOut: { index: number; error: ToolError }[] = [];
  for (const c of candidates) {
    const available = left.get(c.quote.poolId) ?? 0;
    if (c.quote.quantity <= available) {
      left.set(c.quote.poolId, available - c.quote.quantity);
      granted.push(c);
    } else {
      soldOut.push({ index: c.index, error: new ToolError('sold_out', undefined, { available, requested: c.quote.quantity }) });
    }
  }
  const roomy = poolIds.filter((poolId) => (left.get(poolId) ?? 0) >= candidates.filter((c) => c.quote.poolId === poolId).reduce((n, c) => n + c.quote.quantity, 0));
  return { granted, soldOut, roomy };
}
