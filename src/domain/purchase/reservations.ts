/** Reservations (holds): reserve a quote's places, release them exactly once, and load them for their owners. */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Shop, Tier, type ShopRow } from '../../storage/entities/catalog.ts';
import { pricedLineOf, Quote, Reservation, type QuoteRow, type ReservationRow } from '../../storage/entities/purchase.ts';
import { newId } from '../../storage/ids.ts';
import { emitEvent, type WebhookEventType } from '../../webhooks/outbox.ts';
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { returnPlaces, takePlacesOrThrow } from './inventory.ts';
import type { Principal } from '../../kernel/principal.ts';
import { authorizePurchase, ownershipFrom, ownershipOf, requireAccess, type PurchaseIntent } from './purchase-access.ts';
import { loadPurchaseView, type PurchaseView } from './purchase-view.ts';
import { emitAcpOrderEvent } from './acp-order-events.ts';
import { checkTierStillOffered } from '../catalog/catalog-changes.ts';
import { checkRestrictions } from '../catalog/restrictions.ts';

/** Loads a reservation the principal may see, optionally locking its row (FOR UPDATE) for a state change. */
export async function requireReservation(
  em: EntityManager,
  principal: Principal,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<ReservationRow> {
  const row = await em.findOne(Reservation, { id }, opts.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  return requireAccess(principal, row, 'reservation', id);
}

/**
 * Records a purchase event (with the full view) in the outbox, inside the caller's transaction; an order placed or
 * refunded through an ACP checkout session also records ACP's order webhook for the agent platform.
 */
export async function emitPurchaseEvent(em: EntityManager, type: WebhookEventType, r: ReservationRow, now: Date): Promise<PurchaseView> {
  await em.flush();
  const view = await loadPurchaseView(em, r);
  await emitEvent(em, { shopId: r.shopId, type, data: { ...view }, now });
  if (type === 'order.completed') await emitAcpOrderEvent(em, r.id, 'order_create', now);
  if (type === 'order.refunded') await emitAcpOrderEvent(em, r.id, 'order_update', now);
  return view;
}

/**
 * Turns a quote into a hold: the quote is locked and consumed (single use), the restrictions that may
 * have changed are checked again, and the places are taken with one conditional update. `authority` is
 * what authorizes the purchase (see PurchaseIntent): `mandate` when purchase_initiate reserves under a verified mandate.
 */
export async function reserveFromQuote(ctx: ToolContext, quoteId: string, authority: PurchaseIntent['authority'] = 'permission'): Promise<ReservationRow> {
  return (await holdQuote(ctx, quoteId, authority)).reservation;
}

/** reserveFromQuote, telling whether this call made the hold (`created`) or found the caller's own earlier one. */
export async function holdQuote(
  ctx: ToolContext,
  quoteId: string,
  authority: PurchaseIntent['authority'] = 'permission',
): Promise<{ reservation: ReservationRow; created: boolean }> {
  const { em, clock, principal } = ctx;
  const now = clock.now();
  const quote = requireAccess(principal, await em.findOne(Quote, { id: quoteId }, { lockMode: LockMode.PESSIMISTIC_WRITE }), 'quote', quoteId);
  if (quote.reservationId) return { reservation: await existingHold(em, principal, quote), created: false };
  if (quote.expiresAt <= now) throw new ToolError('quote_expired', undefined, { quoteId, expiredAt: quote.expiresAt.toISOString() });
  const tier = await em.findOne(Tier, { id: quote.tierId });
  const shop = await em.findOne(Shop, { id: quote.shopId, deletedAt: null });
  if (!tier || !shop) throw new ToolError('not_found', `No quote ${quoteId}.`, { id: quoteId });
  await checkTierStillOffered(em, tier);
  checkRestrictions(tier, quote, now);
  await authorizePurchase(ctx, { shop, amountMinor: quote.totalMinor, currency: quote.currency, stage: 'reserve', authority });
  const reservation = newHold(em, quote, shop, now);
  await em.flush();
  // Taken last: the pool row is the hot spot every concurrent reserve queues on, so it stays locked
  // only for this statement and the commit. Sold out throws, and the rollback undoes the inserts above.
  await takePlacesOrThrow(em, quote.poolId, quote.quantity);
  return { reservation, created: true };
}

/** A new hold of `quote`'s places at its price, for `shop`'s hold time, not written yet (the reserve batch writes it by statement). */
export function holdOf(quote: QuoteRow, shop: ShopRow, now: Date): ReservationRow {
  const expiresAt = new Date(now.getTime() + shop.holdMinutes * 60_000);
  const hold = {
    id: newId('reservation', now),
    ...ownershipFrom(quote),
    ...pricedLineOf(quote),
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
  } satisfies Omit<ReservationRow, never>; // every column, so the batch's insert writes them all
  return hold as ReservationRow;
}

/** A new hold of a quote's places, through `em`; marks the quote used. Places are taken by the caller. */
export function newHold(em: EntityManager, quote: QuoteRow, shop: ShopRow, now: Date): ReservationRow {
  const reservation = em.create(Reservation, holdOf(quote, shop, now));
  quote.reservationId = reservation.id;
  return reservation;
}

/**
 * Natural idempotency for the batched reserve: the hold an earlier reserve of this quote made for the same owner,
 * read fresh from the database, or undefined while the quote is unreserved; another owner is `quote_already_used`.
 */
export async function sameOwnerHold(ctx: Pick<ToolContext, 'em' | 'principal'>, quoteId: string): Promise<ReservationRow | undefined> {
  const quote = requireAccess(ctx.principal, await ctx.em.findOne(Quote, { id: quoteId }, { refresh: true }), 'quote', quoteId);
  return quote.reservationId ? existingHold(ctx.em, ctx.principal, quote) : undefined;
}

/**
 * A quote is reserved once. Reserving it again is natural idempotency when the caller is the quote's owner (the
 * organization for API keys, the buyer for buyer sessions, the agent for agents: who owns the hold): the same
 * reservation comes back, in whatever state it is now, and nothing more is held. Anyone else who may see the quote
 * (another owner of the same buyer, say) is refused with `quote_already_used`.
 */
async function existingHold(em: EntityManager, principal: Principal, quote: QuoteRow): Promise<ReservationRow> {
  const reservationId = quote.reservationId!;
  if (quote.ownerKey !== ownershipOf(principal).ownerKey) {
    throw new ToolError('quote_already_used', undefined, { quoteId: quote.id, reservationId });
  }
  return requireReservation(em, principal, reservationId);
}

/** Marks a locked reservation released and gives its places back (the caller emits the event). */
export async function releasePlaces(em: EntityManager, r: ReservationRow, reason: 'buyer' | 'expired' | 'payment_failed', now: Date): Promise<void> {
  if (r.state !== 'held' && r.state !== 'confirming') throw new Error(`cannot release a ${r.state} reservation`);
  await returnPlaces(em, r.poolId, r.quantity);
  r.state = 'released';
  r.releaseReason = reason;
  r.releasedAt = now;
  r.updatedAt = now;
  r.paymentDeadline = null;
}

/**
 * Gives a held reservation's places back, exactly once: a second release returns the released
 * reservation unchanged; a confirming one is refused (`payment_in_flight`), a completed one too.
 */
export async function releaseReservation(ctx: ToolContext, id: string): Promise<PurchaseView> {
  const { em, clock, principal } = ctx;
  const now = clock.now();
  const r = await requireReservation(em, principal, id, { lock: true });
  if (r.state === 'released') return loadPurchaseView(em, r);
  if (r.state === 'confirming') throw new ToolError('payment_in_flight', undefined, { reservationId: id });
  if (r.state === 'completed') throw new ToolError('reservation_not_held', 'The reservation is completed; it cannot be released.', { state: r.state });
  await releasePlaces(em, r, 'buyer', now);
  return emitPurchaseEvent(em, 'reservation.released', r, now);
}
