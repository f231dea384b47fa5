/**
 * The buyer's order e-mails: a confirmation (tickets with QR codes, and a receipt: amounts, fees, currency,
 * merchant) when an order completes, and a refund e-mail when a refund succeeds, in the buyer's language. Each is
 * queued (`order_mail`) in the transaction of the change it describes and sent after commit, never inside a
 * transaction; a failed send is retried with backoff (the sweeper's loop and every kick), and a claimed row is
 * leased so several processes never send one twice.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from '../../kernel/clock.ts';
import { describeError } from '../../kernel/errors.ts';
import { resolveLang } from '../../i18n/langs.ts';
import { orderConfirmationMail, refundMail } from '../../mail/templates.ts';
import { sql } from '../../storage/database.ts';
import { newId } from '../../storage/ids.ts';
import type { Services } from '../context.ts';

export type OrderMailDeps = Pick<Services, 'db' | 'mail' | 'catalogs'> & { clock: Clock; log: Logger };

const LEASE_MS = 60_000;
const MAX_ATTEMPTS = 10;

/** Queues an order e-mail inside the caller's transaction; orders without a buyer (a merchant's own sale) get none. */
export async function enqueueOrderMail(em: EntityManager, kind: 'confirmation' | 'refund', order: { id: string; buyerId?: string | null }, refundId: string | null, now: Date): Promise<void> {
  if (!order.buyerId) return;
  await sql(em, 'insert into order_mail (id, kind, order_id, refund_id, next_attempt_at, created_at) values (?, ?, ?, ?, ?, ?) on conflict do nothing', [
    newId('orderMail', now),
    kind,
    order.id,
    refundId,
    now,
    now,
  ]);
}

interface Claimed {
  id: string;
  kind: 'confirmation' | 'refund';
  order_id: string;
  refund_id: string | null;
  attempts: number;
}

/** Sends the order e-mails that are due; returns how many were sent. Errors are logged and retried later. */
export async function sendDueOrderMail(deps: OrderMailDeps, limit = 20): Promise<number> {
  const now = deps.clock.now();
  const claimed = await deps.db.execute<Claimed>(
    `update order_mail set attempts = attempts + 1, next_attempt_at = ?
      where id in (select id from order_mail where sent_at is null and next_attempt_at <= ? and attempts < ?
                    order by next_attempt_at limit ? for update skip locked)
      returning id, kind, order_id, refund_id, attempts`,
    [new Date(now.getTime() + LEASE_MS), now, MAX_ATTEMPTS, limit],
  );
  let sent = 0;
  for (const row of claimed) {
    try {
      await deps.mail.send(await render(deps, row));
      await deps.db.execute('update order_mail set sent_at = ? where id = ?', [deps.clock.now(), row.id]);
      sent++;
    } catch (err) {
      deps.log.error({ orderMail: row.id, err: describeError(err) }, 'order e-mail not sent; will retry');
      await deps.db.execute('update order_mail set next_attempt_at = ? where id = ?', [new Date(now.getTime() + 1000 * Math.min(3600, 2 ** row.attempts * 30)), row.id]);
    }
  }
  return sent;
}

interface OrderFacts {
  email: string;
  buyer_lang: string | null;
  merchant: string;
  event: string;
  starts_at: Date;
  tier: string;
  quantity: number;
  unit_price_minor: number;
  fees_minor: number;
  total_minor: number;
  currency: string;
}

async function render(deps: OrderMailDeps, row: Claimed) {
  const [f] = await deps.db.execute<OrderFacts>(
    `select b.email, b.lang as buyer_lang, s.name as merchant, e.title as event, e.starts_at, t.name as tier,
            r.quantity, r.unit_price_minor, r.fees_minor, r.total_minor, r.currency
       from orders o join buyers b on b.id = o.buyer_id join shops s on s.id = o.shop_id join events e on e.id = o.event_id
       join tiers t on t.id = o.tier_id join reservations r on r.id = o.reservation_id
      where o.id = ?`,
    [row.order_id],
  );
  if (!f) throw new Error(`order ${row.order_id} has no buyer to mail`);
  const lang = resolveLang([f.buyer_lang]);
  const t = deps.catalogs.mailTranslator(lang);
  const common = { lang, merchant: f.merchant, event: f.event, eventStartsAt: new Date(f.starts_at), orderId: row.order_id, currency: f.currency };
  if (row.kind === 'confirmation') {
    const tickets = await deps.db.execute<{ id: string; code: string; signed_code: string | null }>('select id, code, signed_code from tickets where order_id = ? order by id', [row.order_id]);
    const m = await orderConfirmationMail(t, {
      ...common,
      tier: f.tier,
      quantity: f.quantity,
      unitPriceMinor: f.unit_price_minor,
      feesMinor: f.fees_minor,
      totalMinor: f.total_minor,
      tickets: tickets.map((x) => ({ id: x.id, code: x.signed_code ?? x.code })),
    });
    return { to: f.email, ...m };
  }
  const [refund] = await deps.db.execute<{ amount_minor: number; reason: string; ticket_ids: string[] }>('select amount_minor, reason, ticket_ids from refunds where id = ?', [row.refund_id]);
  if (!refund) throw new Error(`refund ${row.refund_id} is missing`);
  return { to: f.email, ...refundMail(t, { ...common, amountMinor: refund.amount_minor, reason: refund.reason, ticketIds: refund.ticket_ids }) };
}
