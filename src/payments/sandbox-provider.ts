/**
 * The sandbox payment provider: a real adapter over a simulated acquirer. Its ledger (`sandbox_charges`)
 * stands for the provider's own database; asynchronous charges settle later and are reported by a signed
 * HTTP request to our provider-webhook endpoint (see SandboxDispatcher).
 */
import { z } from 'zod';
import { ToolError } from '../kernel/errors.ts';
import type { Database } from '../storage/database.ts';
import { newId } from '../storage/ids.ts';
import type {
  ChargeRequest,
  ChargeResult,
  MethodInfo,
  PartialRefundRequest,
  PaymentProvider,
  ProviderEvent,
  RefundRequest,
  RefundResult,
} from './provider.ts';
import { SandboxCharges, type ChargeRow } from './sandbox-charges.ts';
import { SANDBOX_METHODS } from './sandbox-methods.ts';
import { sandboxCredential } from './sandbox-network-credentials.ts';
import { SIGNATURE_HEADER, verifySandboxSignature } from './sandbox-signature.ts';

/** The JSON body of a sandbox event, as sent over the wire. */
export const SandboxEventBody = z.object({
  id: z.string().min(1).max(100),
  type: z.enum(['charge.succeeded', 'charge.failed', 'refund.succeeded', 'refund.failed']),
  created: z.number().int(),
  data: z.object({
    chargeId: z.string().min(1),
    paymentReference: z.string().min(1),
    /** Refund events: the sandbox's refund id and the merchant's refund reference (our refund id). */
    refundId: z.string().min(1).optional(),
    refundReference: z.string().min(1).optional(),
    amountMinor: z.number().int(),
    currency: z.string(),
    failureCode: z.enum(['payment_declined', 'insufficient_funds', 'refund_failed']).nullable(),
  }),
});
export type SandboxEventBody = z.infer<typeof SandboxEventBody>;

export interface SandboxProviderDeps {
  db: Database;
  /** The shared webhook signing secret (SANDBOX_WEBHOOK_SECRET or a generated setting). */
  webhookSecret: string;
  /** Delay before an asynchronous charge settles (SANDBOX_SETTLE_MS). */
  settleMs: number;
}

export class SandboxProvider implements PaymentProvider {
  readonly name = 'sandbox' as const;
  readonly webhookSecret: string;
  private readonly db: Database;
  private readonly settleMs: number;
  private readonly charges: SandboxCharges;

  constructor(deps: SandboxProviderDeps) {
    this.db = deps.db;
    this.charges = new SandboxCharges(deps.db);
    this.webhookSecret = deps.webhookSecret;
    this.settleMs = deps.settleMs;
  }

  /** How the charges were grouped (for tests and the bench): groups, charges in them, the largest group. */
  get chargeStats(): { groups: number; calls: number; largest: number } {
    return this.charges.stats;
  }

  describeMethod(paymentMethod: string): MethodInfo | undefined {
    const m = SANDBOX_METHODS[paymentMethod];
    return m ? { scheme: m.scheme } : undefined;
  }

  describeNetworkCredential(credentialRef: string): MethodInfo | undefined {
    const c = sandboxCredential(credentialRef);
    return c ? { scheme: c.scheme } : undefined;
  }

  /**
   * Records the charge once per payment id (a retry returns the first answer) and answers at once or `pending`.
   * A network-credential charge (under a signed mandate) behaves as its `credentialRef` says.
   */
  async charge(req: ChargeRequest): Promise<ChargeResult> {
    const method = req.networkCredential
      ? sandboxCredential(req.networkCredential.credentialRef)
      : SANDBOX_METHODS[req.paymentMethod];
    if (!method) throw new ToolError('unknown_payment_method', undefined, { paymentMethod: req.paymentMethod });
    const pending = method.timing === 'async';
    // The new charge, or the one this payment id already has (a retry charges once), recorded with the charges
    // arriving meanwhile (sandbox-charges.ts). A charge another transaction committed after the statement's snapshot
    // is in neither: it is then read again below.
    const made = await this.charges.record({
      id: newId('sandboxCharge', req.now),
      paymentReference: req.paymentId,
      paymentMethod: req.paymentMethod,
      amountMinor: req.amountMinor,
      currency: req.currency,
      outcome: method.outcome,
      failureCode: method.failureCode ?? null,
      state: pending ? 'pending' : method.outcome,
      settleAt: pending ? new Date(req.now.getTime() + this.settleMs) : null,
      createdAt: req.now,
      settledAt: pending ? null : req.now,
    });
    const again = 'select id, state, outcome, failure_code from sandbox_charges where payment_reference = ?';
    const [row] = made ? [made] : await this.db.execute<ChargeRow>(again, [req.paymentId]);
    if (!row) throw new Error('sandbox charge missing after insert');
    if (row.state === 'pending') return { status: 'pending', reference: row.id };
    if (row.outcome === 'failed')
      return { status: 'failed', reference: row.id, code: row.failure_code ?? 'payment_declined' };
    return { status: 'succeeded', reference: row.id };
  }

  async refund(req: RefundRequest): Promise<string> {
    const rows = await this.db.execute<{ refund_id: string }>(
      `update sandbox_charges set state = 'refunded', refund_id = coalesce(refund_id, ?), refunded_at = coalesce(refunded_at, ?)
        where id = ? and payment_reference = ? and state in ('succeeded', 'refunded') returning refund_id`,
      [newId('sandboxRefund', req.now), req.now, req.reference, req.paymentId],
    );
    const refundId = rows[0]?.refund_id;
    if (!refundId) throw new Error(`sandbox charge ${req.reference} is not refundable`);
    return refundId;
  }

  /**
   * A partial refund, once per refund id; the sum of a charge's refunds never exceeds the charge (one conditional
   * insert). The charge's method decides the outcome: at once, refused (`pm_sandbox_refund_fails`), or pending
   * until a signed `refund.succeeded` event (`pm_sandbox_refund_async`).
   */
  async refundPart(req: PartialRefundRequest): Promise<RefundResult> {
    const [charge] = await this.db.execute<{ id: string; amount_minor: number; payment_method: string; state: string }>(
      'select id, amount_minor, payment_method, state from sandbox_charges where id = ? and payment_reference = ?',
      [req.reference, req.paymentId],
    );
    if (!charge || charge.state !== 'succeeded') throw new Error(`sandbox charge ${req.reference} is not refundable`);
    const mode = SANDBOX_METHODS[charge.payment_method]?.refund;
    const pending = mode === 'async';
    const outcome = mode === 'fails' ? 'failed' : 'succeeded';
    await this.db.execute(
      `insert into sandbox_refunds (id, charge_id, refund_reference, amount_minor, outcome, state, settle_at, created_at, settled_at)
       select ?, ?, ?, ?, ?, ?, ?, ?, ?
        where (select coalesce(sum(amount_minor), 0) from sandbox_refunds where charge_id = ? and outcome = 'succeeded') + ? <= ?
       on conflict (refund_reference) do nothing`,
      [
        newId('sandboxRefund', req.now),
        charge.id,
        req.refundId,
        req.amountMinor,
        outcome,
        pending ? 'pending' : outcome,
        pending ? new Date(req.now.getTime() + this.settleMs) : null,
        req.now,
        pending ? null : req.now,
        charge.id,
        outcome === 'succeeded' ? req.amountMinor : 0,
        charge.amount_minor,
      ],
    );
    const [row] = await this.db.execute<{ id: string; state: 'pending' | 'succeeded' | 'failed' }>(
      'select id, state from sandbox_refunds where refund_reference = ? and charge_id = ?',
      [req.refundId, charge.id],
    );
    if (!row) throw new Error(`sandbox refund ${req.refundId} would exceed charge ${charge.id}`);
    if (row.state === 'failed') return { status: 'failed', reference: row.id, code: 'refund_failed' };
    return { status: row.state, reference: row.id };
  }

  parseEvent(rawBody: Buffer, headers: Record<string, string | undefined>, now: Date): ProviderEvent {
    verifySandboxSignature(this.webhookSecret, headers[SIGNATURE_HEADER], rawBody, now);
    let json: unknown;
    try {
      json = JSON.parse(rawBody.toString('utf8'));
    } catch {
      throw new ToolError('invalid_json');
    }
    const parsed = SandboxEventBody.safeParse(json);
    if (!parsed.success) throw new ToolError('invalid_input', 'The event body is not a sandbox event.');
    const { id, type, data } = parsed.data;
    if (type === 'refund.succeeded' || type === 'refund.failed') {
      if (!data.refundReference) throw new ToolError('invalid_input', 'A refund event names its refundReference.');
      return {
        id,
        type,
        paymentId: data.paymentReference,
        reference: data.chargeId,
        refundId: data.refundReference,
        ...(data.failureCode ? { failureCode: data.failureCode } : {}),
      };
    }
    return {
      id,
      type: type === 'charge.succeeded' ? 'payment.succeeded' : 'payment.failed',
      paymentId: data.paymentReference,
      reference: data.chargeId,
      ...(data.failureCode ? { failureCode: data.failureCode } : {}),
    };
  }
}
