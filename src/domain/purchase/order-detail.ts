/**
 * An order's page in the console: the order (tickets, payments, refunds), its buyer's contact, its event and tier, the
 * e-mails sent about it (from the order-mail queue) and its check-ins. Merchant principals only.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ToolError } from '../../kernel/errors.ts';
import type { Principal } from '../../kernel/principal.ts';
import { iso, isoOrNull } from '../../kernel/wire.ts';
import { sql } from '../../storage/database.ts';
import { Tier } from '../../storage/entities/catalog.ts';
import { Order } from '../../storage/entities/purchase.ts';
import { ORDER_MAIL_MAX_ATTEMPTS } from './order-mail.ts';
import { BUYER_COLUMNS, BUYER_JOIN, buyerOf, requireMerchantPrincipal } from './order-search.ts';
import { requireAccess } from './purchase-access.ts';
import { loadOrderView } from './purchase-view.ts';

interface Facts {
  event_id: string;
  title: string;
  starts_at: Date;
  venue: string | null;
  cancelled_at: Date | null;
  tier_id: string;
  tier_name: string;
  buyer_email: string | null;
  buyer_name: string | null;
}

interface MailRow {
  id: string;
  kind: 'confirmation' | 'refund' | 'resend';
  refund_id: string | null;
  attempts: number;
  sent_at: Date | null;
  sent_to: string | null;
  created_at: Date;
}

/** The state of a queued order e-mail: sent, given up after the last attempt, or still queued. */
function mailState(m: MailRow): 'queued' | 'sent' | 'failed' {
  if (m.sent_at) return 'sent';
  return m.attempts >= ORDER_MAIL_MAX_ATTEMPTS ? 'failed' : 'queued';
}

/** `{ tiers }` (id and name, in ticket order) when the tickets are of several tiers; nothing (no read) otherwise. */
async function ticketTiers(em: EntityManager, tickets: readonly { tierId: string }[], first: string) {
  const ids = [...new Set([first, ...tickets.map((t) => t.tierId)])];
  if (ids.length < 2) return {};
  const rows = await em.find(Tier, { id: { $in: ids } });
  return { tiers: ids.map((id) => ({ id, name: rows.find((r) => r.id === id)?.name ?? id })) };
}

/** The detail of an order of the caller's organization; another organization's order answers 404. */
export async function orderDetail(em: EntityManager, principal: Principal, id: string) {
  requireMerchantPrincipal(principal);
  const row = requireAccess(principal, await em.findOne(Order, { id }), 'order', id);
  const order = await loadOrderView(em, row);
  const [f] = await sql<Facts>(
    em,
    `select e.id as event_id, e.title, e.starts_at, e.venue, e.cancelled_at, t.id as tier_id, t.name as tier_name,
            ${BUYER_COLUMNS}
       from orders o join events e on e.id = o.event_id join tiers t on t.id = o.tier_id ${BUYER_JOIN}
      where o.id = ?`,
    [id],
  );
  if (!f) throw new ToolError('not_found', `No order ${id}.`, { orderId: id });
  const mails = await sql<MailRow>(
    em,
    `select id, kind, refund_id, attempts, sent_at, sent_to, created_at from order_mail
      where order_id = ? order by created_at, id`,
    [id],
  );
  const buyer = buyerOf(f);
  return {
    order,
    buyer,
    event: {
      id: f.event_id,
      title: f.title,
      startsAt: iso(f.starts_at),
      venue: f.venue,
      cancelled: f.cancelled_at !== null,
    },
    tier: { id: f.tier_id, name: f.tier_name },
    ...(await ticketTiers(em, order.tickets, f.tier_id)), // a multi-line order: each of its tiers
    emails: mails.map((m) => ({
      id: m.id,
      kind: m.kind,
      // Where it went; one not sent yet goes to the buyer's address when it is sent.
      to: m.sent_to ?? buyer?.email ?? null,
      state: mailState(m),
      attempts: m.attempts,
      createdAt: iso(m.created_at),
      sentAt: isoOrNull(m.sent_at),
      refundId: m.refund_id,
    })),
    checkIns: order.tickets
      .filter((t) => t.checkedInAt)
      .map((t) => ({ ticketId: t.id, checkedInAt: t.checkedInAt!, device: t.checkedInDevice }))
      .sort((a, b) => (a.checkedInAt < b.checkedInAt ? -1 : 1)),
  };
}
