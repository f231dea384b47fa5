/**
 * A merchant resends an order's tickets e-mail (the buyer lost it): queued as a `resend` row for the order-mail worker
 * (`OrderMailQueue`), never sent inside the request. At most RESENDS_PER_HOUR per order in any hour, so a console
 * button cannot flood a buyer, and MAX_RESENDS_PER_ORDER in all (`limit_reached`), so an order's e-mails stay bounded; the tool's idempotency key makes a retried click one e-mail.
 */
import { ToolError } from '../../kernel/errors.ts';
import { iso } from '../../kernel/wire.ts';
import { sql } from '../../storage/database.ts';
import { newId } from '../../storage/ids.ts';
import { Order } from '../../storage/entities/purchase.ts';
import type { ToolContext } from '../context.ts';
import { BUYER_COLUMNS, BUYER_JOIN, requireMerchantPrincipal } from './order-search.ts';
import { requireAccess } from './purchase-access.ts';
import { MAX_RESENDS_PER_ORDER, refuseAtLimit } from '../limits.ts';

/** How many resends of one order's tickets e-mail are accepted in any hour. */
export const RESENDS_PER_HOUR = 3;
const HOUR_MS = 3_600_000;

/** Queues the tickets e-mail of an order again and kicks the worker after the commit. */
export async function resendOrderEmail(ctx: ToolContext, orderId: string) {
  requireMerchantPrincipal(ctx.principal);
  const now = ctx.clock.now();
  const queued = await ctx.services.db.transaction(async (em) => {
    const order = requireAccess(ctx.principal, await em.findOne(Order, { id: orderId }), 'order', orderId);
    if (order.state === 'refunded')
      throw new ToolError('conflict', 'The order is refunded: it has no valid tickets to send.', { orderId });
    const [contact] = await sql<{ buyer_email: string | null }>(
      em,
      `select ${BUYER_COLUMNS} from orders o ${BUYER_JOIN} where o.id = ?`,
      [orderId],
    );
    if (!contact?.buyer_email)
      throw new ToolError('conflict', 'The order has no buyer e-mail address to send to.', { orderId });
    // Serialises resends of one order, so two concurrent calls cannot both pass the bound.
    await sql(em, 'select id from orders where id = ? for update', [orderId]);
    const [all] = await sql<{ n: number }>(
      em,
      `select count(*)::int as n from order_mail where order_id = ? and kind = 'resend'`,
      [orderId],
    );
    refuseAtLimit(all?.n ?? 0, MAX_RESENDS_PER_ORDER, 'resends_per_order', { orderId });
    const recent = await sql<{ created_at: Date }>(
      em,
      `select created_at from order_mail where order_id = ? and kind = 'resend' and created_at > ?
        order by created_at`,
      [orderId, new Date(now.getTime() - HOUR_MS)],
    );
    if (recent.length >= RESENDS_PER_HOUR) {
      const wait = Math.ceil((new Date(recent[0]!.created_at).getTime() + HOUR_MS - now.getTime()) / 1000);
      throw new ToolError(
        'rate_limited',
        `This order's tickets e-mail was resent ${RESENDS_PER_HOUR} times in the last hour; try again later.`,
        { orderId, retryAfter: Math.max(1, wait) },
        Math.max(1, wait),
      );
    }
    const id = newId('orderMail', now);
    await sql(
      em,
      `insert into order_mail (id, kind, order_id, refund_id, next_attempt_at, created_at)
       values (?, 'resend', ?, null, ?, ?)`,
      [id, orderId, now, now],
    );
    return { orderId, emailId: id, to: contact.buyer_email, queuedAt: iso(now) };
  });
  ctx.services.orderMail.kick(); // sent by the worker, not in this request
  return queued;
}
