/**
 * UCP checkout sessions over the purchase spine. A UCP session is an ACP session row marked with the UCP version
 * (`apiVersion` "ucp/2026-04-08"): create, update and cancel are ACP's own functions (the same quote → reserve
 * hold, restrictions, invariant and release), so UCP and ACP sell from one pool by one rule; complete charges the
 * sandbox tokenizer handler's payment method through the spine's confirm. The answer is ACP's view said in UCP terms.
 */
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { Tier } from '../../storage/entities/catalog.ts';
import { AcpCheckoutSession, type AcpCheckoutSessionRow } from '../../storage/entities/acp.ts';
import { confirmReservation } from '../purchase/confirmation.ts';
import type { PurchaseView } from '../purchase/purchase-view.ts';
import { declinedMessage } from '../acp/messages.ts';
import type { AcpMessage } from '../acp/session-schema.ts';
import { cancelSession, createSession, requireSession, updateSession, viewOf } from '../acp/sessions.ts';
import { reservationOf, statusOf } from '../acp/session-view.ts';
import { UCP_SANDBOX_HANDLER_ID, UCP_VERSION } from './protocol.ts';
import type { UcpCompleteInput, UcpCreateInput, UcpUpdateInput } from './checkout-schema.ts';
import { ucpCheckoutView } from './checkout-view.ts';
import { checkOrderWebhookUrl, linkOrderWebhook } from './order-webhooks.ts';

/** The `apiVersion` a UCP session's row carries: it tells UCP sessions from ACP ones. */
export const UCP_SESSION_VERSION = `ucp/${UCP_VERSION}`;
const DECLINES = new Set(['payment_declined', 'insufficient_funds']);

/** A UCP session the caller may see; another caller's, or an ACP session, is 404. */
const requireUcpSession = (ctx: ToolContext, id: string, lock = false): Promise<AcpCheckoutSessionRow> =>
  requireSession(ctx, id, lock, 'ucp');

const acpItems = (items: UcpCreateInput['line_items']) => items.map((i) => ({ id: i.item.id, quantity: i.quantity }));

/** Creates a session and holds its tickets; a refusal the platform can resolve is a message (status incomplete). */
export async function createUcpCheckout(ctx: ToolContext, body: UcpCreateInput) {
  // UCP lets the business choose the currency: the tier's own (an unknown tier stays the spine's not_found).
  const tier = await ctx.em.findOne(Tier, { id: body.line_items[0]!.item.id });
  const view = await createSession(ctx, UCP_SESSION_VERSION, {
    line_items: acpItems(body.line_items),
    currency: tier?.currency ?? 'XXX',
    capabilities: {},
    ...(body.buyer?.email ? { buyer: { ...body.buyer, email: body.buyer.email } } : {}),
    ...(body.discounts ? { discounts: body.discounts } : {}),
  });
  return ucpCheckoutView(ctx, view);
}

export async function getUcpCheckout(ctx: ToolContext, id: string) {
  return ucpCheckoutView(ctx, await viewOf(ctx, await requireUcpSession(ctx, id)));
}

/** Replaces the line item and buyer (UCP update is a full replacement); holds the tickets again when they changed. */
export async function updateUcpCheckout(ctx: ToolContext, id: string, body: UcpUpdateInput) {
  if (body.id !== undefined && body.id !== id) {
    throw new ToolError('invalid_input', 'The body’s id must be the session in the path.', { field: 'id' });
  }
  const acpBody = {
    line_items: acpItems(body.line_items),
    ...(body.buyer?.email ? { buyer: { ...body.buyer, email: body.buyer.email } } : {}),
    ...(body.discounts ? { discounts: body.discounts } : {}),
  };
  const view = await updateSession(ctx, id, acpBody, 'ucp');
  return ucpCheckoutView(ctx, view);
}

export async function cancelUcpCheckout(ctx: ToolContext, id: string) {
  return ucpCheckoutView(ctx, await cancelSession(ctx, id, {}, 'ucp'));
}

/**
 * Checks the session and the instrument in one short transaction; returns what to charge. The platform's order webhook
 * (when it negotiated the order capability) is linked here, so the order's events reach it however the payment ends.
 */
async function prepare(ctx: ToolContext, id: string, body: UcpCompleteInput, orderWebhookUrl?: string) {
  if (orderWebhookUrl) checkOrderWebhookUrl(orderWebhookUrl, ctx.services.webhooks.addressPolicy);
  return ctx.services.db.transaction(async (em) => {
    const tx = { ...ctx, em };
    const s = await requireUcpSession(tx, id, true);
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
      );
    }
    if (status !== 'ready_for_payment' || !r)
      throw new ToolError('checkout_session_not_ready', undefined, { id, status });
    const instruments = body.payment.instruments;
    const chosen = instruments.find((i) => i.selected) ?? instruments[0]!;
    if (chosen.handler_id !== UCP_SANDBOX_HANDLER_ID) {
      throw new ToolError(
        'payment_handler_unsupported',
        `Use the ${UCP_SANDBOX_HANDLER_ID} handler the profile offers.`,
        {
          field: 'payment.instruments[0].handler_id',
        },
      );
    }
    if (orderWebhookUrl) {
      await linkOrderWebhook(em, { sessionId: s.id, shopId: s.shopId, url: orderWebhookUrl, now: ctx.clock.now() });
    }
    return { reservationId: r.id, paymentMethod: chosen.credential.token };
  });
}

/** Records the outcome: completed with the order, complete_in_progress while it settles, or a decline message. */
async function record(ctx: ToolContext, id: string, outcome: PurchaseView | ToolError) {
  return ctx.services.db.transaction(async (em) => {
    const now = ctx.clock.now();
    const s = await em.findOneOrFail(AcpCheckoutSession, { id });
    const declined = outcome instanceof ToolError;
    s.messages = declined ? [declinedMessage(outcome) as AcpMessage] : [];
    if (!declined) {
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
 * Completes a ready session with the sandbox handler's token: the spine's confirm charges it (never inside a
 * transaction; its own idempotency holds, so money never moves twice). A decline keeps the session ready with a
 * payment_declined message.
 */
export async function completeUcpCheckout(
  ctx: ToolContext,
  id: string,
  body: UcpCompleteInput,
  orderWebhookUrl?: string,
) {
  const { reservationId, paymentMethod } = await prepare(ctx, id, body, orderWebhookUrl);
  let outcome: PurchaseView | ToolError;
  try {
    outcome = await confirmReservation(ctx, reservationId, paymentMethod);
  } catch (err) {
    if (!(err instanceof ToolError) || !DECLINES.has(err.code)) throw err;
    outcome = err;
  }
  return ucpCheckoutView(ctx, await record(ctx, id, outcome));
}
