/**
 * Reservations (holds): the reserve step (`decideReserve`, the one rule; `reserveFromQuote`) and its compensation
 * (`releasePlaces`), releasing exactly once, and loading holds for their owners.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Event, Shop, Tier, type EventRow, type ShopRow, type TierRow } from '../../storage/entities/catalog.ts';
import {
  pricedLineOf,
  Quote,
  Reservation,
  type OrderRow,
  type QuoteRow,
  type ReservationRow,
  type TicketRow,
} from '../../storage/entities/purchase.ts';
import { newId } from '../../storage/ids.ts';
import { emitEvent, type WebhookEventType } from '../../webhooks/outbox.ts';
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { offerFreedPlacesOf } from './waiting-list-offers.ts';
import type { Principal } from '../../kernel/principal.ts';
import {
  authorizePurchase,
  ownershipFrom,
  ownershipOf,
  requireAccess,
  type PurchaseIntent,
} from './purchase-access.ts';
import { loadPurchaseView, type PurchaseView } from './purchase-view.ts';
import { emitAcpOrderEvent } from './acp-order-events.ts';
import { checkTierOffered } from '../catalog/catalog-changes.ts';
import { checkRestrictions } from '../catalog/restrictions.ts';
import { returnDiscountUses, takeDiscountUse } from './discount-uses.ts';
import { returnAll, takeAllOrThrow } from './lines.ts';
import { checkOtherLines } from './lines-reserve.ts';

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
 * refunded through an ACP checkout session also records ACP's order webhook for the agent platform. `created`: the
 * order (and its tickets) this transaction has just created, which the view then uses without reading them back.
 */
export async function emitPurchaseEvent(
  em: EntityManager,
  type: WebhookEventType,
  r: ReservationRow,
  now: Date,
  created?: { order: OrderRow; tickets: readonly TicketRow[] },
): Promise<PurchaseView> {
  await em.flush();
  const view = await loadPurchaseView(em, r, created);
  await emitEvent(em, { shopId: r.shopId, type, data: { ...view }, now });
  if (type === 'order.completed') await emitAcpOrderEvent(em, r.id, 'order_create', now);
  if (type === 'order.refunded') await emitAcpOrderEvent(em, r.id, 'order_update', now);
  return view;
}

/** What deciding a reserve reads beside the quote: its tier, its live shop (null when deleted) and its event. */
export interface Offer {
  tier: TierRow | null | undefined;
  shop: ShopRow | null | undefined;
  /** Not needed (and not read) when the tier is retired. */
  event: EventRow | null | undefined;
}

/** A reserve's decision: make a new hold of the quote's places, or answer with the caller's own earlier hold. */
export type ReserveDecision = { kind: 'hold'; quote: QuoteRow; shop: ShopRow } | { kind: 'own'; reservationId: string };

/**
 * The reserve rule, the one every reserve follows (the `reserve` tool's batch over REST, MCP and A2A; ACP checkout
 * sessions and purchase_initiate through `reserveFromQuote`), from the quote as locked and what `offerOf` reads:
 * another organization's quote is not found; a quote already reserved is the caller's own hold when the caller owns
 * the quote (natural idempotency: docs/purchase-spine.md), else `quote_already_used`; then expiry, the shop and tier
 * still there, the tier still offered (not retired, its event not cancelled), its restrictions again (in the order the
 * quote checked them) and the caller's authority (`authority`: see PurchaseIntent). Throws the refusal.
 */
export async function decideReserve(
  ctx: Pick<ToolContext, 'principal' | 'em' | 'clock'>,
  quoteId: string,
  found: QuoteRow | null | undefined,
  offerOf: (quote: QuoteRow) => Offer | Promise<Offer>,
  now: Date,
  authority: PurchaseIntent['authority'] = 'permission',
): Promise<ReserveDecision> {
  const quote = requireAccess(ctx.principal, found, 'quote', quoteId);
  const reservationId = quote.reservationId;
  if (reservationId) {
    if (quote.ownerKey === ownershipOf(ctx.principal).ownerKey) return { kind: 'own', reservationId };
    throw new ToolError('quote_already_used', undefined, { quoteId: quote.id, reservationId });
  }
  if (quote.expiresAt <= now) {
    throw new ToolError('quote_expired', undefined, { quoteId, expiredAt: quote.expiresAt.toISOString() });
  }
  const { tier, shop, event } = await offerOf(quote);
  if (!tier || !shop) throw new ToolError('not_found', `No quote ${quoteId}.`, { id: quoteId });
  checkTierOffered(tier, event);
  checkRestrictions(tier, quote, now);
  await checkOtherLines(ctx.em, quote, event, now); // a multi-line quote's other lines (none: nothing read)
  const { totalMinor: amountMinor, currency } = quote;
  await authorizePurchase(ctx, { shop, amountMinor, currency, stage: 'reserve', authority });
  return { kind: 'hold', quote, shop };
}

/**
 * The reserve step inside the caller's own transaction (ACP checkout sessions, purchase_initiate; the `reserve` tool
 * batches the same rule: reserve-batcher.ts): the quote is locked, `decideReserve` decides, and a new hold is written
 * and its places taken with one conditional update (`sold_out` otherwise; the caller's rollback undoes the hold). The
 * caller's own earlier hold comes back as it is (locked with `lockOwn`). Undone by `releasePlaces`, below.
 */
export async function reserveFromQuote(
  ctx: ToolContext,
  quoteId: string,
  authority: PurchaseIntent['authority'] = 'permission',
  opts: { lockOwn?: boolean } = {},
): Promise<ReservationRow> {
  const { em, clock, principal } = ctx;
  const now = clock.now();
  const found = await em.findOne(Quote, { id: quoteId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  const decided = await decideReserve(ctx, quoteId, found, (quote) => readOffer(em, quote), now, authority);
  const lock = opts.lockOwn === true;
  if (decided.kind === 'own') return requireReservation(em, principal, decided.reservationId, { lock });
  const reservation = newHold(em, decided.quote, decided.shop, now);
  await takeDiscountUse(em, decided.quote, reservation.id, now); // only with a discount code (discount-uses.ts)
  await em.flush();
  // Taken last: the pool row is the hot spot every concurrent reserve queues on, so it stays locked
  // only for this statement and the commit. Sold out throws, and the rollback undoes the inserts above.
  await takeAllOrThrow(em, decided.quote); // every line's pool, in pool id order (one tier: its pool, as before)
  return reservation;
}

/** A quote's offer, read with the ORM (the reserve batch reads it with the quote: src/storage/reserve-batch.ts). */
async function readOffer(em: EntityManager, quote: QuoteRow): Promise<Offer> {
  const tier = await em.findOne(Tier, { id: quote.tierId });
  const shop = await em.findOne(Shop, { id: quote.shopId, deletedAt: null });
  // A retired tier needs no event read (it is refused first).
  const event = tier && !tier.retiredAt ? await em.findOne(Event, { id: tier.eventId }) : undefined;
  return { tier, shop, event };
}

/**
 * A new hold of `quote`'s places at its price, for `shop`'s hold time, not written yet (the reserve batch writes it by
 * statement).
 */
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
    attendees: null, // given with the reserve or the confirm (attendees.ts)
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
 * The reserve step's compensation: marks a locked reservation released and gives its places back (the caller emits
 * the event). The sweeper releases expired holds the same way, many at once (sweeper.ts).
 */
export async function releasePlaces(
  em: EntityManager,
  r: ReservationRow,
  reason: 'buyer' | 'expired' | 'payment_failed',
  now: Date,
): Promise<void> {
  if (r.state !== 'held' && r.state !== 'confirming') throw new Error(`cannot release a ${r.state} reservation`);
  await returnDiscountUses(em, [r], now); // only with a discount code (discount-uses.ts)
  await returnAll(em, r); // every line's places (one tier: its pool, as before)
  await offerFreedPlacesOf(em, r, now); // the next in line gets them first (docs: "Waiting list")
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
  if (r.state === 'completed')
    throw new ToolError('reservation_not_held', 'The reservation is completed; it cannot be released.', {
      state: r.state,
    });
  await releasePlaces(em, r, 'buyer', now);
  return emitPurchaseEvent(em, 'reservation.released', r, now);
}
