/**
 * The buyer's order e-mails: a confirmation (tickets with QR codes, and a receipt: amounts, fees, currency,
 * merchant) when an order completes, and a refund e-mail when a refund succeeds, in the buyer's language. Each is
 * queued (`order_mail`) in the transaction of the change it describes and sent by the background worker
 * (`OrderMailQueue`), never inside the request or a transaction: the request only kicks the worker after its commit.
 * A failed send is retried with back-off on the worker's timer; a claimed row is leased (src/storage/work-queue.ts)
 * so several processes never send one twice.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from '../../kernel/clock.ts';
import { describeError } from '../../kernel/errors.ts';
import { Periodic } from '../../kernel/periodic.ts';
import { resolveLang } from '../../i18n/langs.ts';
import { orderConfirmationMail, refundMail } from '../../mail/templates.ts';
import { sql } from '../../storage/database.ts';
import { newId } from '../../storage/ids.ts';
import { claimDue, doublingDelays, retryAt, type RetryPolicy, type WorkTable } from '../../storage/work-queue.ts';
import type { Services } from '../context.ts';
import { withTicketDocuments } from './ticket-documents.ts';
import { withOrderTax } from './order-mail-tax.ts';
import { mailLines } from './order-mail-lines.ts';
import type { PurchaseLineRow } from '../../storage/entities/purchase.ts';

/** `payments` and `publicUrl` give the e-mail its wallet links (without them: the tickets PDF only). */
export type OrderMailDeps = Pick<Services, 'db' | 'mail' | 'catalogs' | 'payments' | 'publicUrl'> & {
  clock: Clock;
  log: Logger;
};

/** A failed send waits 60 s, 2 min, 4 min, … at most an hour; after 10 attempts the e-mail is left unsent. */
const RETRY: RetryPolicy = { maxAttempts: 10, delayMs: doublingDelays(30_000, 3_600_000) };
/** After this many failed attempts an order e-mail is left unsent (the console shows it as failed). */
export const ORDER_MAIL_MAX_ATTEMPTS = RETRY.maxAttempts;
const ORDER_MAIL: WorkTable = {
  table: 'order_mail',
  key: 'id',
  due: 'sent_at is null and next_attempt_at <= ?',
  order: 'next_attempt_at',
  lease: { column: 'next_attempt_at', ms: 60_000 },
  attempts: 'attempts',
  maxAttempts: RETRY.maxAttempts,
};
const BATCH = 20;

/**
 * The worker that sends the order e-mails: every `intervalMs` (the sweeper's interval) for retries, and at once,
 * in the background, when a request that queued one kicks it.
 */
export class OrderMailQueue {
  private readonly deps: OrderMailDeps;
  private readonly loop: Periodic;

  constructor(deps: OrderMailDeps) {
    this.deps = deps;
    this.loop = new Periodic('order-mail', deps.log);
  }

  /** Asks for a pass soon, in the background (after a commit that queued an e-mail); never waits for it. */
  kick(): void {
    this.loop.kick();
  }

  /** One pass now, after any running one: sends the due e-mails and returns how many were sent. */
  async sendDue(): Promise<number> {
    return (await this.loop.exclusive(() => sendDueOrderMail(this.deps))).sent;
  }

  /** Resolves once the passes asked for so far (kicked, timed or by hand) have finished: tests wait on it for mail. */
  idle(): Promise<void> {
    return this.loop.idle();
  }

  /** Runs a pass every `intervalMs` (0: only when kicked). */
  start(intervalMs: number): void {
    this.loop.start(intervalMs, async () => (await sendDueOrderMail(this.deps)).claimed === BATCH);
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}

/**
 * The address of an order made through ACP by a caller that is not a buyer (an API key, a merchant's platform): the
 * `buyer.email` its checkout session was completed with. Such an order gets its e-mails at that address.
 */
const acpBuyerEmail = (reservation: string) => `(select a.buyer->>'email' from acp_checkout_sessions a
  where a.reservation_id = ${reservation} and a.buyer->>'email' is not null limit 1)`;

/**
 * Whether an order gets its e-mails: one with a buyer does, and so does an ACP order whose checkout session names the
 * buyer's e-mail (`acpEmail`); other orders (a merchant's own sale, an API key's purchase without an e-mail) get none.
 */
export const queuesOrderMail = (order: { buyerId?: string | null }, acpEmail: string | null): boolean =>
  Boolean(order.buyerId) || Boolean(acpEmail);

/**
 * Queues an order e-mail inside the caller's transaction, for an order with a buyer or an ACP order whose session
 * names the buyer's e-mail; other orders (a merchant's own sale, an API key's purchase without an e-mail) get none.
 */
export async function enqueueOrderMail(
  em: EntityManager,
  kind: 'confirmation' | 'refund',
  order: { id: string; buyerId?: string | null; reservationId: string },
  refundId: string | null,
  now: Date,
): Promise<void> {
  if (!order.buyerId) {
    // The order may not be flushed yet: its reservation names the session.
    const [known] = await sql<{ email: string | null }>(em, `select ${acpBuyerEmail('?')} as email`, [
      order.reservationId,
    ]);
    if (!queuesOrderMail(order, known?.email ?? null)) return;
  }
  await sql(
    em,
    'insert into order_mail (id, kind, order_id, refund_id, next_attempt_at, created_at) values (?, ?, ?, ?, ?, ?) on conflict do nothing',
    [newId('orderMail', now), kind, order.id, refundId, now, now],
  );
}

interface Claimed {
  id: string;
  /** `resend`: the confirmation again, asked for by the merchant (resend_order_email). */
  kind: 'confirmation' | 'refund' | 'resend';
  order_id: string;
  refund_id: string | null;
  attempts: number;
}

/** Sends the order e-mails that are due; errors are logged and the e-mail retried later. */
async function sendDueOrderMail(deps: OrderMailDeps): Promise<{ claimed: number; sent: number }> {
  const now = deps.clock.now();
  const returning = 'id, kind, order_id, refund_id, attempts';
  const claimed = await claimDue<Claimed>(deps.db, ORDER_MAIL, { now, limit: BATCH, returning });
  let sent = 0;
  for (const row of claimed) {
    try {
      const mail = await render(deps, row);
      await deps.mail.send(mail);
      await deps.db.execute('update order_mail set sent_at = ?, sent_to = ? where id = ?', [
        deps.clock.now(),
        mail.to,
        row.id,
      ]);
      sent++;
    } catch (err) {
      deps.log.error({ orderMail: row.id, err: describeError(err) }, 'order e-mail not sent; will retry');
      const next = retryAt(RETRY, row.attempts, now);
      if (next) await deps.db.execute('update order_mail set next_attempt_at = ? where id = ?', [next, row.id]);
    }
  }
  return { claimed: claimed.length, sent };
}

interface OrderFacts {
  email: string | null;
  buyer_lang: string | null;
  merchant: string;
  /** With tax settings the e-mail lists the tax and attaches the invoice (order-mail-tax.ts). */
  tax_settings: unknown;
  event: string;
  starts_at: Date;
  time_zone: string;
  tier: string;
  quantity: number;
  unit_price_minor: number;
  fees_minor: number;
  total_minor: number;
  currency: string;
  /** A multi-line purchase's lines (null for one tier). */
  lines: PurchaseLineRow[] | null;
}

async function render(deps: OrderMailDeps, row: Claimed) {
  const [f] = await deps.db.execute<OrderFacts>(
    `select coalesce(b.email, ${acpBuyerEmail('o.reservation_id')}) as email,
            coalesce((select p.mail_lang from payments p where p.id = o.payment_id), b.lang) as buyer_lang,
            s.name as merchant, s.tax_settings, e.title as event, e.starts_at, e.time_zone, t.name as tier,
            r.quantity, r.unit_price_minor, r.fees_minor, r.total_minor, r.currency, r.lines
       from orders o left join buyers b on b.id = o.buyer_id join shops s on s.id = o.shop_id
       join events e on e.id = o.event_id
       join tiers t on t.id = o.tier_id join reservations r on r.id = o.reservation_id
      where o.id = ?`,
    [row.order_id],
  );
  if (!f?.email) throw new Error(`order ${row.order_id} has no buyer to mail`);
  const lang = resolveLang([f.buyer_lang]);
  const t = deps.catalogs.mailTranslator(lang);
  const common = {
    lang,
    merchant: f.merchant,
    event: f.event,
    eventStartsAt: new Date(f.starts_at),
    eventTimeZone: f.time_zone,
    orderId: row.order_id,
    currency: f.currency,
  };
  if (row.kind === 'confirmation' || row.kind === 'resend') {
    const tickets = await deps.db.execute<{
      id: string;
      code: string;
      signed_code: string | null;
      tier_id: string;
      attendee_name: string | null;
    }>('select id, code, signed_code, tier_id, attendee_name from tickets where order_id = ? order by id', [
      row.order_id,
    ]);
    const several = await mailLines(deps.db, f.lines, tickets); // a multi-line purchase: a line per tier
    const m = await orderConfirmationMail(t, {
      ...common,
      tier: f.tier,
      quantity: f.quantity,
      unitPriceMinor: f.unit_price_minor,
      feesMinor: f.fees_minor,
      totalMinor: f.total_minor,
      tickets: tickets.map((x) => ({
        id: x.id,
        code: x.signed_code ?? x.code,
        tier: several.tierOf?.(x.id),
        attendee: x.attendee_name ?? undefined,
      })),
      lines: several.lines,
    });
    // The tickets PDF attached, wallet links when the shop has them on (issue #37, item 5).
    const taxed = await withOrderTax(
      deps.db,
      { id: row.order_id, taxSettings: f.tax_settings, currency: f.currency },
      lang,
      m,
    );
    return withTicketDocuments(deps, row.order_id, lang, { to: f.email, ...taxed }, deps.clock.now());
  }
  const [refund] = await deps.db.execute<{ amount_minor: number; reason: string; ticket_ids: string[] }>(
    'select amount_minor, reason, ticket_ids from refunds where id = ?',
    [row.refund_id],
  );
  if (!refund) throw new Error(`refund ${row.refund_id} is missing`);
  return {
    to: f.email,
    ...refundMail(t, {
      ...common,
      amountMinor: refund.amount_minor,
      reason: refund.reason,
      ticketIds: refund.ticket_ids,
    }),
  };
}
