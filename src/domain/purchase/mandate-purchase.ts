/**
 * Purchases under a network-signed mandate (purchase_initiate). The mandate is verified outside any
 * transaction (a network's JWKS may be fetched); then the spine's own payment attempt runs, with the
 * mandate as the spend authority: in ONE transaction the quote is reserved when needed, the mandate is
 * checked against the locked reservation at the moment of payment (merchant, currency, amount, expiry),
 * its jti is spent and the pending payment recorded; the network credential is charged outside it.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { mandatePeriod, type Mandate } from '../../mandates/mandate.ts';
import { consumeMandateJti } from '../../mandates/mandate-jtis.ts';
import { verifyMandate } from '../../mandates/verify-mandate.ts';
import { sql } from '../../storage/database.ts';
import { Quote, type ReservationRow } from '../../storage/entities/purchase.ts';
import { payReservation, type SpendContext } from './confirmation.ts';
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { authorizePurchase, requireAccess } from './purchase-access.ts';
import type { PurchaseView } from './purchase-view.ts';
import { requireReservation, reserveFromQuote } from './reservations.ts';

export interface MandatePurchaseRequest {
  reservationId?: string | undefined;
  quoteId?: string | undefined;
  mandate?: { payload?: string | undefined; signature?: string | undefined } | undefined;
}

export interface MandatePurchase {
  view: PurchaseView;
  mandate: Mandate;
  network: { id: string; name: string };
  /** The recurrence period this call spent the jti in; null when the reservation was already paid or in payment. */
  spentPeriod: string | null;
}

/**
 * Pays for the caller's reservation (or reserves the caller's quote and pays for it) with the mandate's
 * network credential. Same outcomes as confirm: completed, pending (async provider) or a decline (402,
 * the reservation is held again and the jti given back). Any refusal before the charge leaves nothing
 * changed: no reservation from the quote, no payment, no spent jti.
 */
export async function purchaseUnderMandate(ctx: ToolContext, req: MandatePurchaseRequest): Promise<MandatePurchase> {
  if ((req.reservationId === undefined) === (req.quoteId === undefined)) {
    throw new ToolError('invalid_input', 'Give exactly one of reservationId or quoteId.', {
      fields: ['reservationId', 'quoteId'],
    });
  }
  const signature = req.mandate?.signature;
  if (!signature)
    throw new ToolError('mandate_required', undefined, { field: req.mandate ? 'mandate.signature' : 'mandate' });
  const merchantId = await targetShop(ctx, req);
  const trust = ctx.services.mandateTrust;
  const input = { payload: req.mandate?.payload, signature, merchantId };
  // Outside any transaction; the jti is checked when it is spent, atomically with the payment.
  const verified = await verifyMandate({ trust, em: ctx.em, now: ctx.clock.now() }, input, { checkJti: false });
  const { mandate } = verified;
  let spentPeriod: string | null = null;
  const view = await payReservation(ctx, {
    reservation: (em) => lockTarget(em, ctx, req),
    paymentMethod: mandate.credentialRef,
    networkCredential: { network: mandate.network, credentialRef: mandate.credentialRef, mandateId: mandate.mandateId },
    async authorize(spend) {
      const r = spend.reservation;
      checkMandateCovers(mandate, r, spend.now);
      const intent = {
        shop: spend.shop,
        amountMinor: r.totalMinor,
        currency: r.currency,
        stage: 'pay' as const,
        reservationId: r.id,
      };
      await authorizePurchase({ ...ctx, em: spend.em }, { ...intent, authority: 'mandate' });
      spentPeriod = await spendJti(spend, mandate);
    },
  });
  return { view, mandate, network: verified.network, spentPeriod };
}

/** The shop the purchase is in: from the caller's reservation or quote (`not_found` when not the caller's). */
async function targetShop(ctx: ToolContext, req: MandatePurchaseRequest): Promise<string> {
  if (req.reservationId !== undefined)
    return (await requireReservation(ctx.em, ctx.principal, req.reservationId)).shopId;
  const id = req.quoteId!;
  return requireAccess(ctx.principal, await ctx.em.findOne(Quote, { id }), 'quote', id).shopId;
}

/**
 * Inside tx1: the caller's reservation, locked; for a quote, the reserve step under the mandate's authority: the
 * caller's hold it was already turned into, locked (so a retry after a provider outage pays the same hold), else a new
 * hold.
 */
async function lockTarget(em: EntityManager, ctx: ToolContext, req: MandatePurchaseRequest): Promise<ReservationRow> {
  if (req.reservationId !== undefined) return requireReservation(em, ctx.principal, req.reservationId, { lock: true });
  return reserveFromQuote({ ...ctx, em }, req.quoteId!, 'mandate', { lockOwn: true });
}

/** The mandate's limits, at the moment of payment, against the locked reservation. */
export function checkMandateCovers(mandate: Mandate, r: ReservationRow, now: Date): void {
  const limit = mandate.amountLimit;
  if (!mandate.merchantScope.merchantIds.includes(r.shopId)) {
    throw new ToolError('mandate_merchant_mismatch', `The mandate does not authorize purchases at ${r.shopId}.`, {
      merchantId: r.shopId,
    });
  }
  if (now >= new Date(mandate.expiresAt)) {
    throw new ToolError('mandate_expired', `The mandate expired at ${mandate.expiresAt}.`, {
      expiresAt: mandate.expiresAt,
    });
  }
  if (r.currency !== limit.currency) {
    throw new ToolError(
      'mandate_currency_mismatch',
      `The purchase is in ${r.currency}; the mandate's limit is in ${limit.currency}.`,
      {
        currency: r.currency,
        limitCurrency: limit.currency,
      },
    );
  }
  if (r.totalMinor > limit.amountMinor) {
    throw new ToolError(
      'mandate_amount_exceeded',
      `The total ${r.totalMinor} is above the mandate's limit of ${limit.amountMinor} ${limit.currency}.`,
      {
        amountMinor: r.totalMinor,
        limitMinor: limit.amountMinor,
        currency: limit.currency,
      },
    );
  }
}

/**
 * Spends the jti for this payment (`reference` = the payment id) in tx1. A jti already spent on an earlier
 * attempt for the SAME reservation that failed without a definitive answer (provider unreachable, so the
 * charge may have happened) moves to this attempt; every other earlier spend is `mandate_jti_used`.
 */
async function spendJti({ em, reservation, paymentId, now }: SpendContext, mandate: Mandate): Promise<string> {
  try {
    return (await consumeMandateJti(em, mandate, { merchantId: reservation.shopId, reference: paymentId, at: now }))
      .period;
  } catch (err) {
    if (!(err instanceof ToolError) || err.code !== 'mandate_jti_used') throw err;
    const period = mandatePeriod(mandate.recurrence, now);
    const moved = await sql(
      em,
      `update mandate_jtis j set reference = ?, used_at = ? from payments p
        where j.network = ? and j.jti = ? and j.period = ? and p.id = j.reference and p.reservation_id = ? and p.state = 'failed'
        returning j.period`,
      [paymentId, now, mandate.network, mandate.jti, period, reservation.id],
    );
    if (moved.length === 0) throw err;
    return period;
  }
}
