/**
 * Completing an ACP checkout session: the delegated token's allowance is checked against the held total,
 * then the spine's own confirm charges the token's sandbox payment method (never inside a transaction).
 * A decline keeps the session ready for payment with a `payment_declined` message; success spends the token.
 */
import type { ToolContext } from '../context.ts';
import { confirmReservation } from '../purchase/confirmation.ts';
import { ToolError } from '../../kernel/errors.ts';
import type { PurchaseView } from '../purchase/purchase-view.ts';
import { AcpCheckoutSession } from '../../storage/entities/acp.ts';
import { declinedMessage } from './messages.ts';
import type { CompleteRequest } from './request-schemas.ts';
import type { AcpCheckoutSessionOut, AcpMessage } from './session-schema.ts';
import { requireSession, viewOf } from './sessions.ts';
import { CARD_HANDLER_ID, reservationOf, statusOf } from './session-view.ts';
import { checkAllowance, markUsed } from './vault.ts';

const DECLINES = new Set(['payment_declined', 'insufficient_funds']);

/** Checks the session and the token's allowance, in one short transaction; returns what to charge. */
async function prepare(
  ctx: ToolContext,
  id: string,
  body: CompleteRequest,
): Promise<{ reservationId: string; paymentMethod: string; tokenId: string }> {
  return ctx.services.db.transaction(async (em) => {
    const tx = { ...ctx, em };
    const s = await requireSession(tx, id, true);
    const r = await reservationOf(em, s);
    const status = statusOf(s, r, ctx.clock.now());
    if (status === 'completed' || status === 'canceled') {
      throw new ToolError('checkout_session_closed', `The checkout session is ${status}; it can no longer change.`, {
        id,
        status,
      });
    }
    if (status === 'complete_in_progress') throw new ToolError('payment_in_flight', undefined, { id, status });
    if (status === 'expired') {
      throw new ToolError(
        'reservation_expired',
        'The hold on the tickets expired; update the session to hold them again.',
        { id, status },
      );
    }
    if (status !== 'ready_for_payment' || !r) {
      throw new ToolError('checkout_session_not_ready', undefined, { id, status, messages: s.messages });
    }
    const { payment_data: pay } = body;
    if (pay.handler_id !== CARD_HANDLER_ID) {
      throw new ToolError('payment_handler_unsupported', `Use the ${CARD_HANDLER_ID} handler the session offers.`, {
        field: 'payload.payment_data.handler_id',
      });
    }
    const spend = { sessionId: s.id, merchantId: s.shopId, currency: r.currency, amountMinor: r.totalMinor };
    const presented = pay.instrument.credential.token;
    const token = await checkAllowance(em, ctx.services.vaultTokenHash, presented, spend, ctx.clock.now());
    // The buyer is recorded before the charge: the order's e-mails go to its address (order-mail.ts).
    if (body.buyer) s.buyer = body.buyer;
    // From here on the token is named by its stored hash only (the session keeps that, not the token).
    return { reservationId: r.id, paymentMethod: token.paymentMethod, tokenId: token.id };
  });
}

/** Records the outcome on the session (and spends the token unless declined) and returns the session. */
async function record(
  ctx: ToolContext,
  id: string,
  body: CompleteRequest,
  tokenId: string,
  outcome: PurchaseView | ToolError,
): Promise<AcpCheckoutSessionOut> {
  return ctx.services.db.transaction(async (em) => {
    const now = ctx.clock.now();
    const s = await em.findOneOrFail(AcpCheckoutSession, { id });
    const declined = outcome instanceof ToolError;
    if (body.buyer) s.buyer = body.buyer;
    if (body.order_notes !== undefined) s.orderNotes = body.order_notes;
    s.messages = declined ? [declinedMessage(outcome) as AcpMessage] : [];
    if (!declined) {
      await markUsed(em, tokenId, s.id, now);
      s.paymentTokenId = tokenId;
      s.orderId = outcome.order?.id ?? null;
      s.status = outcome.order ? 'completed' : 'complete_in_progress';
      if (outcome.order) s.completedAt = now;
    }
    s.updatedAt = now;
    await em.flush();
    return viewOf({ ...ctx, em }, s);
  });
}

/**
 * Completes a ready session with a delegated token: 200 `completed` with the order, 200 `complete_in_progress`
 * while the provider confirms asynchronously, or 200 `ready_for_payment` with a payment_declined message.
 */
export async function completeSession(
  ctx: ToolContext,
  id: string,
  body: CompleteRequest,
): Promise<AcpCheckoutSessionOut> {
  const { reservationId, paymentMethod, tokenId } = await prepare(ctx, id, body);
  let outcome: PurchaseView | ToolError;
  try {
    outcome = await confirmReservation(ctx, reservationId, paymentMethod);
  } catch (err) {
    if (!(err instanceof ToolError) || !DECLINES.has(err.code)) throw err;
    outcome = err;
  }
  return record(ctx, id, body, tokenId, outcome);
}
