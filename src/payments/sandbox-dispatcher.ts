/**
 * The sandbox provider's settlement and event sender: due asynchronous charges and refunds settle to their outcome,
 * and each settlement is POSTed, signed, over real HTTP to `${publicUrl}/v1/payments/providers/sandbox/events`
 * until a 2xx answer. Safe with several processes on one database (SKIP LOCKED claims, leased attempts:
 * src/storage/work-queue.ts).
 */
import type { Logger } from 'pino';
import type { Clock } from '../kernel/clock.ts';
import { Periodic } from '../kernel/periodic.ts';
import { sql, type Database } from '../storage/database.ts';
import { newId } from '../storage/ids.ts';
import { claimDue, doublingDelays, retryAt, type RetryPolicy, type WorkTable } from '../storage/work-queue.ts';
import type { SandboxEventBody } from './sandbox-provider.ts';
import { SIGNATURE_HEADER, signSandboxPayload } from './sandbox-signature.ts';
import { describeError } from '../kernel/errors.ts';

export const SANDBOX_EVENTS_PATH = '/v1/payments/providers/sandbox/events';
const BATCH = 50;
const ATTEMPT_TIMEOUT_MS = 10_000;
const LEASE_MS = 60_000;
/** An event is sent again after 2 s, 4 s, 8 s, … at most an hour, 12 times in all. */
const RETRY: RetryPolicy = { maxAttempts: 12, delayMs: doublingDelays(1000, 3_600_000) };
/** Charges or refunds whose settlement time has come, locked by the settling transaction. */
const toSettle = (table: string): WorkTable => ({
  table,
  key: 'id',
  due: `state = 'pending' and settle_at <= ?`,
  order: 'settle_at',
});
/** Settled charges or refunds whose event is due to be sent (again). */
const toSend = (table: string): WorkTable => ({
  table,
  key: 'id',
  due: 'event_id is not null and delivered_at is null and next_delivery_at <= ?',
  order: 'next_delivery_at',
  lease: { column: 'next_delivery_at', ms: LEASE_MS },
  attempts: 'delivery_attempts',
  maxAttempts: RETRY.maxAttempts,
});
const CHARGES_TO_SETTLE = toSettle('sandbox_charges');
const REFUNDS_TO_SETTLE = toSettle('sandbox_refunds');
const CHARGE_EVENTS = toSend('sandbox_charges');
const REFUND_EVENTS = toSend('sandbox_refunds');

export interface SettleReport {
  settled: number;
  attempted: number;
  delivered: number;
}

export interface SandboxDispatcherDeps {
  db: Database;
  clock: Clock;
  log: Logger;
  webhookSecret: string;
  /** The base URL of our own server, read at send time (known only once it listens). */
  publicUrl: () => string;
}

interface DueEvent {
  id: string;
  event_id: string;
  payment_reference: string;
  amount_minor: number;
  currency: string;
  outcome: 'succeeded' | 'failed';
  failure_code: 'payment_declined' | 'insufficient_funds' | null;
  settled_at: Date;
  delivery_attempts: number;
}

interface DueRefundEvent {
  id: string;
  event_id: string;
  refund_reference: string;
  charge_id: string;
  payment_reference: string;
  amount_minor: number;
  currency: string;
  outcome: 'succeeded' | 'failed';
  settled_at: Date;
  delivery_attempts: number;
}

export class SandboxDispatcher {
  private readonly deps: SandboxDispatcherDeps;
  private readonly loop: Periodic;

  constructor(deps: SandboxDispatcherDeps) {
    this.deps = deps;
    this.loop = new Periodic('sandbox-dispatcher', deps.log);
  }

  /** One pass at `clock.now()`: settle every due charge, then send every due event once. */
  settleDue(): Promise<SettleReport> {
    return this.loop.exclusive(() => this.pass());
  }

  start(intervalMs: number): void {
    this.loop.start(intervalMs, async () => {
      const r = await this.pass();
      return r.settled === BATCH || r.attempted === BATCH;
    });
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async pass(): Promise<SettleReport> {
    const settled = (await this.settle(this.deps.clock.now())) + (await this.settleRefunds(this.deps.clock.now()));
    const charges = await this.deliver(this.deps.clock.now());
    const refunds = await this.deliverRefunds(this.deps.clock.now());
    return {
      settled,
      attempted: charges.attempted + refunds.attempted,
      delivered: charges.delivered + refunds.delivered,
    };
  }

  /** Due pending refunds settle to their outcome, each with an event to send. */
  private async settleRefunds(now: Date): Promise<number> {
    return this.deps.db.transaction(async (em) => {
      const due = await claimDue<{ id: string }>(em, REFUNDS_TO_SETTLE, { now, limit: BATCH });
      for (const { id } of due) {
        await sql(
          em,
          'update sandbox_refunds set state = outcome, settled_at = ?, event_id = ?, next_delivery_at = ? where id = ?',
          [now, newId('sandboxEvent', now), now, id],
        );
      }
      return due.length;
    });
  }

  private async deliverRefunds(now: Date): Promise<{ attempted: number; delivered: number }> {
    const ids = await claimDue<{ id: string }>(this.deps.db, REFUND_EVENTS, { now, limit: BATCH });
    const claimed = ids.length
      ? await this.deps.db.execute<DueRefundEvent>(
          `select r.id, r.event_id, r.refund_reference, r.charge_id, c.payment_reference, r.amount_minor, c.currency,
                  r.outcome, r.settled_at, r.delivery_attempts
             from sandbox_refunds r join sandbox_charges c on c.id = r.charge_id
            where r.id in (${ids.map(() => '?').join(', ')})`,
          ids.map((r) => r.id),
        )
      : [];
    let delivered = 0;
    for (const row of claimed) {
      const event: SandboxEventBody = {
        id: row.event_id,
        type: row.outcome === 'succeeded' ? 'refund.succeeded' : 'refund.failed',
        created: Math.floor(new Date(row.settled_at).getTime() / 1000),
        data: {
          chargeId: row.charge_id,
          paymentReference: row.payment_reference,
          refundId: row.id,
          refundReference: row.refund_reference,
          amountMinor: row.amount_minor,
          currency: row.currency,
          failureCode: row.outcome === 'failed' ? 'refund_failed' : null,
        },
      };
      const ok = await this.post(event);
      const next = ok ? [now, null] : [null, retryAt(RETRY, row.delivery_attempts, now)];
      await this.deps.db.execute(
        'update sandbox_refunds set delivered_at = ?, next_delivery_at = coalesce(?, next_delivery_at) where id = ?',
        [...next, row.id],
      );
      if (ok) delivered++;
    }
    return { attempted: claimed.length, delivered };
  }

  private async settle(now: Date): Promise<number> {
    return this.deps.db.transaction(async (em) => {
      const due = await claimDue<{ id: string }>(em, CHARGES_TO_SETTLE, { now, limit: BATCH });
      for (const { id } of due) {
        await sql(
          em,
          `update sandbox_charges set state = outcome, settled_at = ?, event_id = ?, next_delivery_at = ? where id = ?`,
          [now, newId('sandboxEvent', now), now, id],
        );
      }
      return due.length;
    });
  }

  private async deliver(now: Date): Promise<{ attempted: number; delivered: number }> {
    const claimed = await claimDue<DueEvent>(this.deps.db, CHARGE_EVENTS, {
      now,
      limit: BATCH,
      returning:
        'id, event_id, payment_reference, amount_minor, currency, outcome, failure_code, settled_at, delivery_attempts',
    });
    let delivered = 0;
    for (const row of claimed) {
      const ok = await this.send(row);
      const next = ok ? [now, null] : [null, retryAt(RETRY, row.delivery_attempts, now)];
      await this.deps.db.execute(
        'update sandbox_charges set delivered_at = ?, next_delivery_at = coalesce(?, next_delivery_at) where id = ?',
        [...next, row.id],
      );
      if (ok) delivered++;
    }
    return { attempted: claimed.length, delivered };
  }

  private send(row: DueEvent): Promise<boolean> {
    const event: SandboxEventBody = {
      id: row.event_id,
      type: row.outcome === 'succeeded' ? 'charge.succeeded' : 'charge.failed',
      created: Math.floor(new Date(row.settled_at).getTime() / 1000),
      data: {
        chargeId: row.id,
        paymentReference: row.payment_reference,
        amountMinor: row.amount_minor,
        currency: row.currency,
        failureCode: row.outcome === 'failed' ? (row.failure_code ?? 'payment_declined') : null,
      },
    };
    return this.post(event);
  }

  /** POSTs one signed event to our provider-webhook endpoint; true on a 2xx answer. */
  private async post(event: SandboxEventBody): Promise<boolean> {
    const body = JSON.stringify(event);
    const url = `${this.deps.publicUrl().replace(/\/$/, '')}${SANDBOX_EVENTS_PATH}`;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [SIGNATURE_HEADER]: signSandboxPayload(this.deps.webhookSecret, body, this.deps.clock.now()),
        },
        body,
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      });
      await res.arrayBuffer().catch(() => undefined);
      if (!res.ok) this.deps.log.warn({ event: event.id, status: res.status }, 'sandbox event refused');
      return res.ok;
    } catch (err) {
      this.deps.log.warn({ event: event.id, err: describeError(err) }, 'sandbox event not delivered');
      return false;
    }
  }
}
