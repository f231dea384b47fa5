/** What a merchant's refund would pay back now, shown before the merchant confirms it; nothing is claimed. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../../kernel/principal.ts';
import { Order } from '../../storage/entities/purchase.ts';
import { priceRefund } from './refund-pricing.ts';
import { requireMerchantPrincipal } from './order-search.ts';
import { requireAccess } from './purchase-access.ts';

/**
 * The tickets and amount refund_order would refund for the same `ticketIds` at this moment (the same rule:
 * `priceRefund`), and what would remain refundable after it. Another organization's order answers 404.
 */
export async function previewRefund(
  em: EntityManager,
  principal: Principal,
  orderId: string,
  ticketIds: readonly string[] | undefined,
) {
  requireMerchantPrincipal(principal);
  const order = requireAccess(principal, await em.findOne(Order, { id: orderId }), 'order', orderId);
  const { chosen, amountMinor, remainingMinor } = await priceRefund(em, order, ticketIds);
  return { orderId, ticketIds: chosen.map((t) => t.id), amountMinor, currency: order.currency, remainingMinor };
}
