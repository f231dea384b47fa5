/**
 * ACP checkout sessions over the purchase spine: create/update hold the tickets with the spine's own quote and the
 * reserve tool's hot-pool batcher (same pool counter, same holds, same invariant: session-hold.ts), cancel releases
 * the hold. A spine refusal the agent can resolve becomes a session message (status not_ready_for_payment); any other
 * one a flat error.
 */
import { LockMode } from '@mikro-orm/core';
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { ownershipOf, requireAccess } from '../purchase/purchase-access.ts';
import { requireSellableTier } from '../purchase/quotes.ts';
import { releaseReservation } from '../purchase/reservations.ts';
import { AcpCheckoutSession, type AcpCheckoutSessionRow } from '../../storage/entities/acp.ts';
import type { ShopRow, TierRow } from '../../storage/entities/catalog.ts';
import { newId } from '../../storage/ids.ts';
import { completeHold, sessionCountry, startHold, type PendingHold } from './session-hold.ts';
import { sessionCodes } from './session-discounts.ts';
import type { CancelRequest, CreateRequest, UpdateRequest } from './request-schemas.ts';
import { itemsOf } from './session-lines.ts';
import type { AcpCheckoutSessionOut } from './session-schema.ts';
import { DIGITAL_OPTION_ID, reservationOf, sessionView, statusOf } from './session-view.ts';

/**
 * The protocol a session was made through: a UCP session (src/domain/ucp/checkout.ts) is a row of this table whose
 * `apiVersion` is `ucp/<version>`. Each protocol sees only its own sessions: the other's answer 404.
 */
export type SessionProtocol = 'acp' | 'ucp';
const protocolOf = (s: AcpCheckoutSessionRow): SessionProtocol => (s.apiVersion.startsWith('ucp/') ? 'ucp' : 'acp');

/** Loads a session of `protocol` the caller may see (404 otherwise), optionally locked for a state change. */
export async function requireSession(
  ctx: Pick<ToolContext, 'em' | 'principal'>,
  id: string,
  lock = false,
  protocol: SessionProtocol = 'acp',
): Promise<AcpCheckoutSessionRow> {
  const row = await ctx.em.findOne(AcpCheckoutSession, { id }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  return requireAccess(ctx.principal, row && protocolOf(row) === protocol ? row : null, 'checkout session', id);
}

export function viewOf(ctx: ToolContext, s: AcpCheckoutSessionRow): Promise<AcpCheckoutSessionOut> {
  return sessionView(ctx.em, s, ctx.services.publicUrl(), ctx.clock.now());
}

async function sellableTier(ctx: ToolContext, tierId: string): Promise<{ tier: TierRow; shop: ShopRow }> {
  try {
    return await requireSellableTier(ctx.em, ctx, tierId);
  } catch (err) {
    if (err instanceof ToolError && err.code === 'not_found') {
      throw new ToolError('not_found', `No ticket tier ${tierId}.`, { tierId, field: 'payload.line_items[0].id' });
    }
    throw err;
  }
}

/**
 * Runs a session change in its own transaction, then holds the quote it left pending on the reserve batcher
 * (session-hold.ts) and answers with the session as it then is. Called outside any transaction (the tools are
 * `transactional: false`): the batch must see the committed quote.
 */
async function changeThenHold(
  ctx: ToolContext,
  change: (tx: ToolContext) => Promise<{ id: string; pending?: PendingHold }>,
): Promise<AcpCheckoutSessionOut> {
  const { id, pending } = await ctx.services.db.transaction((em) => change({ ...ctx, em }));
  if (pending) await completeHold(ctx, pending);
  const em = ctx.services.db.fork();
  return viewOf({ ...ctx, em }, await em.findOneOrFail(AcpCheckoutSession, { id }));
}

/** Creates a session and holds its tickets (201 even when they cannot be held: the messages say why). */
export function createSession(
  ctx: ToolContext,
  apiVersion: string,
  body: CreateRequest,
): Promise<AcpCheckoutSessionOut> {
  return changeThenHold(ctx, (tx) => createHeld(tx, apiVersion, body));
}

async function createHeld(
  ctx: ToolContext,
  apiVersion: string,
  body: CreateRequest,
): Promise<{ id: string; pending?: PendingHold }> {
  const { tierId, quantity, lines } = itemsOf(body.line_items);
  const { tier, shop } = await sellableTier(ctx, tierId);
  if (body.currency.toUpperCase() !== tier.currency) {
    throw new ToolError('invalid_input', `This merchant sells in ${tier.currency.toLowerCase()}.`, {
      field: 'payload.currency',
    });
  }
  const now = ctx.clock.now();
  const owner = ownershipOf(ctx.principal);
  const s = ctx.em.create(AcpCheckoutSession, {
    id: newId('checkout', now),
    shopId: tier.shopId,
    organizationId: shop.organizationId,
    ownerKey: owner.ownerKey,
    buyerId: owner.buyerId,
    apiVersion,
    status: 'not_ready_for_payment',
    currency: tier.currency,
    tierId,
    quantity,
    lines,
    reservationId: null,
    holdQuoteId: null,
    orderId: null,
    buyer: body.buyer ?? null,
    fulfillmentDetails: body.fulfillment_details ?? null,
    capabilities: body.capabilities,
    messages: [],
    locale: body.locale ?? null,
    timezone: body.timezone ?? null,
    orderNotes: body.order_notes ?? null,
    metadata: body.metadata ?? null,
    intentTrace: null,
    paymentTokenId: null,
    createdAt: now,
    updatedAt: now,
    completedAt: null,
    canceledAt: null,
  });
  await ctx.em.flush();
  const pending = await startHold(ctx, s, tier, await sessionCodes(ctx.em, body.discounts, null));
  await ctx.em.flush();
  return { id: s.id, pending };
}

/** Refuses a change to a session that is closed or paying. */
function assertOpen(status: ReturnType<typeof statusOf>, id: string): void {
  if (status === 'completed' || status === 'canceled') {
    throw new ToolError('checkout_session_closed', `The checkout session is ${status}; it can no longer change.`, {
      id,
      status,
    });
  }
  if (status === 'complete_in_progress') throw new ToolError('payment_in_flight', undefined, { id, status });
}

/**
 * Applies buyer, fulfillment and item changes. The tickets are held again (the old hold released first)
 * when the item or quantity changed, the delivery country changed, or there is no live hold.
 */
export function updateSession(
  ctx: ToolContext,
  id: string,
  body: UpdateRequest,
  protocol: SessionProtocol = 'acp',
): Promise<AcpCheckoutSessionOut> {
  return changeThenHold(ctx, (tx) => updateHeld(tx, id, body, protocol));
}

async function updateHeld(
  ctx: ToolContext,
  id: string,
  body: UpdateRequest,
  protocol: SessionProtocol,
): Promise<{ id: string; pending?: PendingHold }> {
  const s = await requireSession(ctx, id, true, protocol);
  const r = await reservationOf(ctx.em, s);
  assertOpen(statusOf(s, r, ctx.clock.now()), id);
  body.selected_fulfillment_options?.forEach((o, i) => {
    if (o.type !== 'digital' || o.option_id !== DIGITAL_OPTION_ID) {
      throw new ToolError('invalid_input', `Tickets are delivered digitally: select option ${DIGITAL_OPTION_ID}.`, {
        field: `payload.selected_fulfillment_options[${i}].option_id`,
      });
    }
  });
  const before = { tierId: s.tierId, quantity: s.quantity, country: sessionCountry(s), lines: JSON.stringify(s.lines) };
  if (body.buyer) s.buyer = body.buyer;
  if (body.fulfillment_details) s.fulfillmentDetails = body.fulfillment_details;
  if (body.order_notes !== undefined) s.orderNotes = body.order_notes;
  let tier: TierRow | undefined;
  if (body.line_items) {
    const item = itemsOf(body.line_items);
    tier = (await sellableTier(ctx, item.tierId)).tier;
    if (tier.shopId !== s.shopId) {
      throw new ToolError(
        'invalid_input',
        'A checkout session buys from one merchant; start a new session for another.',
        {
          field: 'payload.line_items[0].id',
        },
      );
    }
    s.tierId = item.tierId;
    s.quantity = item.quantity;
    s.lines = item.lines;
  }
  const live = r !== null && r.state === 'held' && r.expiresAt > ctx.clock.now();
  const changed =
    before.tierId !== s.tierId ||
    before.quantity !== s.quantity ||
    before.country !== sessionCountry(s) ||
    before.lines !== JSON.stringify(s.lines);
  let pending: PendingHold | undefined;
  if (changed || !live || body.discounts) {
    const codes = await sessionCodes(ctx.em, body.discounts, r); // asked now, or the code the hold has
    if (r && r.state === 'held') await releaseReservation(ctx, r.id);
    pending = await startHold(ctx, s, tier ?? (await sellableTier(ctx, s.tierId)).tier, codes);
  }
  s.updatedAt = ctx.clock.now();
  await ctx.em.flush();
  return { id: s.id, pending };
}

/** Cancels a session and gives its tickets back; 405 once it is completed or canceled. */
export async function cancelSession(
  ctx: ToolContext,
  id: string,
  body: CancelRequest,
  protocol: SessionProtocol = 'acp',
): Promise<AcpCheckoutSessionOut> {
  const s = await requireSession(ctx, id, true, protocol);
  const r = await reservationOf(ctx.em, s);
  const status = statusOf(s, r, ctx.clock.now());
  if (status === 'completed' || status === 'canceled') {
    throw new ToolError('checkout_session_not_cancelable', `The checkout session is already ${status}.`, {
      id,
      status,
    });
  }
  if (status === 'complete_in_progress') throw new ToolError('payment_in_flight', undefined, { id, status });
  if (r && r.state === 'held') await releaseReservation(ctx, r.id);
  const now = ctx.clock.now();
  s.status = 'canceled';
  s.holdQuoteId = null; // a hold still being made for it is given back (session-hold.ts)
  s.canceledAt = now;
  s.updatedAt = now;
  s.messages = [];
  if (body.intent_trace) s.intentTrace = body.intent_trace;
  await ctx.em.flush();
  return viewOf(ctx, s);
}
