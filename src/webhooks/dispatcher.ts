/**
 * The webhook dispatcher: fans outbox events out to matching subscriptions (one delivery row per
 * event and subscription) and sends due deliveries with retries. Safe with several server processes
 * on one database: work is claimed with `FOR UPDATE SKIP LOCKED`, and each attempt holds a lease
 * (src/storage/work-queue.ts); the delivery states and the retry schedule are this module's.
 */
import type { Logger } from 'pino';
import type { Clock } from '../kernel/clock.ts';
import { Periodic } from '../kernel/periodic.ts';
import { sql, type Database } from '../storage/database.ts';
import { newId } from '../storage/ids.ts';
import { claimDue, retryAt, scheduledDelays, type RetryPolicy, type WorkTable } from '../storage/work-queue.ts';
import { deliveryBody } from './delivery-body.ts';
import { SecretBox } from './secret-box.ts';
import type { AddressPolicy } from './url-policy.ts';
import { ATTEMPT_TIMEOUT_MS, DeliveryTarget, sendAttempt, type AttemptOutcome } from './send.ts';
import { acpWebhookHeaders, webhookHeaders } from './signature.ts';
import { loadUcpSigningKey, ucpWebhookHeaders, type UcpSigningKey } from './ucp-signature.ts';

export { deliveryBody, type RecordedEvent } from './delivery-body.ts';

/** Delay before each retry, in seconds: after attempt n fails, attempt n+1 is due after RETRY_DELAYS_SECONDS[n-1]. */
export const RETRY_DELAYS_SECONDS = [30, 120, 600, 3600, 21_600, 43_200, 86_400] as const;
/** Attempts before a delivery is marked `failed` (the first one plus every retry). */
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
/** How long a claimed attempt keeps other processes away; longer than the attempt timeout. */
const LEASE_MS = ATTEMPT_TIMEOUT_MS + 50_000;
const FAN_OUT_BATCH = 200;
const DELIVERY_BATCH = 25;
const RETRY: RetryPolicy = { maxAttempts: MAX_ATTEMPTS, delayMs: scheduledDelays(RETRY_DELAYS_SECONDS) };
/** Events not yet fanned out, locked by the fan-out's transaction. */
const UNDISPATCHED: WorkTable = {
  table: 'webhook_events',
  key: 'id',
  due: 'dispatched_at is null',
  order: 'created_at, id',
};
/** Pending deliveries whose next attempt is due; `failed` (attempts used up) and `delivered` ones never are. */
const DUE_DELIVERIES: WorkTable = {
  table: 'webhook_deliveries',
  key: 'id',
  due: `status = 'pending' and next_attempt_at <= ?`,
  order: 'next_attempt_at, id',
  lease: { column: 'next_attempt_at', ms: LEASE_MS },
  attempts: 'attempts',
};

export interface DispatchReport {
  /** Outbox events fanned out in this step. */
  events: number;
  /** Delivery rows created for them. */
  deliveriesCreated: number;
  /** Attempts made in this step, and how they ended. */
  attempted: number;
  delivered: number;
  retrying: number;
  failed: number;
}

export interface DispatcherDeps {
  db: Database;
  clock: Clock;
  log: Logger;
  /** The server secret the signing-secret key is derived from. */
  serverSecret: string;
  /** Development only: deliver to loopback addresses (WEBHOOK_ALLOW_LOOPBACK). */
  allowLoopback?: boolean;
  /** The server's base URL: ACP order events carry a path as `permalink_url`, made absolute when sent. */
  publicUrl?: () => string;
}

interface ClaimedRow {
  id: string;
  attempts: number;
  event_id: string;
  type: string;
  data: unknown;
  created_at: Date | string;
  subscription_id: string;
  url: string;
  secret_sealed: string;
  kind: 'merchant' | 'acp' | 'ucp';
}

const placeholders = (n: number): string => Array.from({ length: n }, () => '?').join(', ');

export class WebhookDispatcher {
  /** Seals and opens the subscriptions' signing secrets. */
  readonly secrets: SecretBox;
  private readonly db: Database;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly stopping = new AbortController();
  private readonly loop: Periodic;
  private readonly target: DeliveryTarget;
  private readonly publicUrl: () => string;
  private readonly serverSecret: string;
  private ucpKey: Promise<UcpSigningKey> | undefined;

  constructor(deps: DispatcherDeps) {
    this.db = deps.db;
    this.clock = deps.clock;
    this.log = deps.log.child({ component: 'webhooks' });
    this.secrets = new SecretBox(deps.serverSecret);
    this.target = new DeliveryTarget({ allowLoopback: deps.allowLoopback ?? false });
    this.loop = new Periodic('webhooks', this.log);
    this.publicUrl = deps.publicUrl ?? (() => 'http://localhost');
    this.serverSecret = deps.serverSecret;
  }

  /** The key UCP order webhooks are signed with (made once per database; its public JWK is in the UCP profile). */
  ucpSigningKey(): Promise<UcpSigningKey> {
    this.ucpKey ??= loadUcpSigningKey(this.db, this.serverSecret).catch((err: unknown) => {
      this.ucpKey = undefined;
      throw err;
    });
    return this.ucpKey;
  }

  /**
   * One step: fan out pending outbox events, then make every due delivery attempt (once each). Waits
   * for a running background step first, so when it returns all work due at that moment is done.
   */
  dispatchOnce(): Promise<DispatchReport> {
    return this.loop.exclusive(() => this.step());
  }

  private async step(): Promise<DispatchReport> {
    const fanned = await this.fanOut();
    const sent = await this.deliverDue();
    return { ...fanned, ...sent };
  }

  /** Turns undispatched outbox events into one `pending` delivery per matching active subscription. */
  async fanOut(): Promise<Pick<DispatchReport, 'events' | 'deliveriesCreated'>> {
    const now = this.clock.now();
    return this.db.transaction(async (em) => {
      const events = await claimDue<{ id: string }>(em, UNDISPATCHED, { now, limit: FAN_OUT_BATCH });
      if (!events.length) return { events: 0, deliveriesCreated: 0 };
      const ids = events.map((e) => e.id);
      // A subscription receives the events emitted from its creation on, of the types it lists.
      const pairs = await sql<{ event_id: string; subscription_id: string }>(
        em,
        `select e.id as event_id, s.id as subscription_id
           from webhook_events e
           join webhook_subscriptions s on s.shop_id = e.shop_id and s.deleted_at is null
                                       and e.type = any(s.events) and s.created_at <= e.created_at
                                       and (e.subscription_id is null or e.subscription_id = s.id)
          where e.id in (${placeholders(ids.length)})`,
        ids,
      );
      let created = 0;
      if (pairs.length) {
        const values = pairs.map(() => `(?, ?, ?, 'pending', 0, ?, ?)`).join(', ');
        const params = pairs.flatMap((p) => [newId('delivery', now), p.event_id, p.subscription_id, now, now]);
        const inserted = await sql<{ id: string }>(
          em,
          `insert into webhook_deliveries (id, event_id, subscription_id, status, attempts, next_attempt_at, created_at)
           values ${values} on conflict (event_id, subscription_id) do nothing returning id`,
          params,
        );
        created = inserted.length;
      }
      await sql(em, `update webhook_events set dispatched_at = ? where id in (${placeholders(ids.length)})`, [
        now,
        ...ids,
      ]);
      return { events: ids.length, deliveriesCreated: created };
    });
  }

  /** Claims the due deliveries (each in one process only), sends them and records each outcome. */
  async deliverDue(): Promise<Pick<DispatchReport, 'attempted' | 'delivered' | 'retrying' | 'failed'>> {
    const now = this.clock.now();
    const claimed = await claimDue<{ id: string; attempts: number }>(this.db, DUE_DELIVERIES, {
      now,
      limit: DELIVERY_BATCH,
      set: 'last_attempt_at = ?',
      setParams: [now],
      returning: 'id, attempts',
    });
    const rows = claimed.length
      ? await this.db.execute<ClaimedRow>(
          `select d.id, d.attempts, d.event_id, e.type, e.data, e.created_at, d.subscription_id,
                  s.url, s.secret_sealed, s.kind
             from webhook_deliveries d
             join webhook_events e on e.id = d.event_id
             join webhook_subscriptions s on s.id = d.subscription_id
            where d.id in (${placeholders(claimed.length)})`,
          claimed.map((c) => c.id),
        )
      : [];
    const outcomes = await Promise.all(rows.map((row) => this.attempt(row)));
    const report = { attempted: rows.length, delivered: 0, retrying: 0, failed: 0 };
    for (const o of outcomes) report[o] += 1;
    return report;
  }

  private async attempt(row: ClaimedRow): Promise<'delivered' | 'retrying' | 'failed'> {
    if (row.kind === 'ucp') return this.attemptUcp(row);
    const body = deliveryBody(row, this.publicUrl());
    const secret = this.secrets.open(row.secret_sealed, row.subscription_id);
    const timestamp = Math.floor(this.clock.now().getTime() / 1000);
    const sign = row.kind === 'acp' ? acpWebhookHeaders : webhookHeaders;
    const outcome: AttemptOutcome = secret
      ? await sendAttempt(
          this.target,
          row.url,
          sign(secret, row.event_id, timestamp, body),
          { id: row.event_id, body },
          this.stopping.signal,
        )
      : { ok: false, status: null, error: 'signing secret unavailable: the server secret changed' };
    return this.record(row, outcome);
  }

  /** A UCP order webhook: signed with the business key (RFC 9421), not a shared secret. */
  private async attemptUcp(row: ClaimedRow): Promise<'delivered' | 'retrying' | 'failed'> {
    const publicUrl = this.publicUrl();
    const body = deliveryBody(row, publicUrl);
    const timestampSeconds = Math.floor(this.clock.now().getTime() / 1000);
    const headers = await this.ucpSigningKey().then(
      (key) =>
        ucpWebhookHeaders(key, {
          url: row.url,
          id: row.event_id,
          timestampSeconds,
          body,
          profileUrl: `${publicUrl.replace(/\/$/, '')}/.well-known/ucp`,
        }),
      () => null,
    );
    const outcome: AttemptOutcome = headers
      ? await sendAttempt(this.target, row.url, headers, { id: row.event_id, body }, this.stopping.signal)
      : { ok: false, status: null, error: 'signing key unavailable: the server secret changed' };
    return this.record(row, outcome);
  }

  /** Writes an attempt's outcome, unless the delivery was re-claimed or cancelled meanwhile. */
  private async record(row: ClaimedRow, outcome: AttemptOutcome): Promise<'delivered' | 'retrying' | 'failed'> {
    const now = this.clock.now();
    const guard = `where id = ? and attempts = ? and status = 'pending'`;
    if (outcome.ok) {
      await this.db.execute(
        `update webhook_deliveries set status = 'delivered', delivered_at = ?, next_attempt_at = null,
                last_status = ?, last_error = null ${guard}`,
        [now, outcome.status, row.id, row.attempts],
      );
      return 'delivered';
    }
    const next = retryAt(RETRY, row.attempts, now);
    const giveUp = next === null;
    await this.db.execute(
      `update webhook_deliveries set status = ?, next_attempt_at = ?, last_status = ?, last_error = ? ${guard}`,
      [giveUp ? 'failed' : 'pending', next, outcome.status, outcome.error?.slice(0, 200) ?? null, row.id, row.attempts],
    );
    if (giveUp)
      this.log.warn({ delivery: row.id, subscription: row.subscription_id }, 'webhook delivery failed for good');
    return giveUp ? 'failed' : 'retrying';
  }

  /** Runs a step every `intervalMs` (at once again while there is a backlog); 0 disables the loop. */
  start(intervalMs: number): void {
    if (this.stopping.signal.aborted) return;
    this.loop.start(intervalMs, async () => {
      const r = await this.step();
      return r.events === FAN_OUT_BATCH || r.attempted === DELIVERY_BATCH;
    });
  }

  /** Where subscriptions may point and deliveries may connect (`url-policy.ts`). */
  get addressPolicy(): AddressPolicy {
    return this.target.policy;
  }

  /** Stops the loop, interrupts attempts in flight (recorded as failed attempts, retried later) and waits for them. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.loop.stop();
    await this.target.close().catch(() => undefined);
  }
}
