/** A checkout session said in UCP terms: ACP's authoritative view mapped onto the UCP 2026-04-08 checkout. */
import type { ToolContext } from '../context.ts';
import type { AcpCheckoutSessionOut, AcpMessage } from '../acp/session-schema.ts';
import type { UcpCheckoutOut } from './checkout-schema.ts';
import { ucpDiscounts } from './discounts.ts';
import { sandboxHandler, UCP_CHECKOUT, UCP_SANDBOX_HANDLER, UCP_VERSION } from './protocol.ts';

const STATUS: Record<AcpCheckoutSessionOut['status'], UcpCheckoutOut['status']> = {
  not_ready_for_payment: 'incomplete',
  ready_for_payment: 'ready_for_complete',
  complete_in_progress: 'complete_in_progress',
  completed: 'completed',
  canceled: 'canceled',
  // UCP has no expired state: the session is incomplete until an update holds the tickets again (its message says so).
  expired: 'incomplete',
};

/** ACP's resolution names map onto UCP's severities one to one; a message without one is a warning or info. */
function messageOf(m: AcpMessage): UcpCheckoutOut['messages'][number] {
  const path = m.param ? { path: m.param.replace('$.payment_data', '$.payment') } : {};
  if (m.type === 'error') {
    return {
      type: 'error',
      code: m.code ?? 'invalid',
      ...path,
      content: m.content,
      severity: m.resolution ?? 'recoverable',
    };
  }
  return { type: m.type, ...(m.code ? { code: m.code } : {}), ...path, content: m.content };
}

const totals = (ts: AcpCheckoutSessionOut['totals']) =>
  ts
    .filter((t) => t.type !== 'items_base_amount')
    // UCP's totals are signed: a discount is negative (ACP says it as a positive amount).
    .map((t) => ({
      type: t.type,
      display_text: t.display_text,
      amount: t.type === 'items_discount' ? -t.amount : t.amount,
    }));

/** The UCP checkout for an ACP session view (the business's capabilities and the sandbox handler in `ucp`). */
export function ucpCheckoutView(ctx: ToolContext, v: AcpCheckoutSessionOut): UcpCheckoutOut {
  const handler = sandboxHandler(ctx.services.publicUrl());
  const brands = v.capabilities.payment.handlers[0]?.config.accepted_brands ?? [];
  const out: UcpCheckoutOut = {
    ucp: {
      version: UCP_VERSION,
      status: 'success',
      capabilities: { [UCP_CHECKOUT]: [{ version: UCP_VERSION }] },
      payment_handlers: {
        [UCP_SANDBOX_HANDLER]: [
          {
            id: handler.id,
            version: handler.version,
            available_instruments: [{ type: 'card', constraints: { brands: [...brands] } }],
            config: handler.config,
          },
        ],
      },
    },
    id: v.id,
    status: STATUS[v.status],
    currency: v.currency.toUpperCase(),
    line_items: v.line_items.map((li) => ({
      id: li.id,
      item: { id: li.item.id, title: li.name, price: li.unit_amount },
      quantity: li.quantity,
      totals: totals(li.totals),
    })),
    totals: totals(v.totals),
    messages: v.messages.map(messageOf),
    links: v.links,
  };
  if (v.buyer) {
    const { first_name, last_name, email, phone_number } = v.buyer;
    out.buyer = {
      ...(first_name ? { first_name } : {}),
      ...(last_name ? { last_name } : {}),
      ...(email ? { email } : {}),
      ...(phone_number ? { phone_number } : {}),
    };
  }
  if (v.expires_at) out.expires_at = v.expires_at;
  if (v.order) out.order = { id: v.order.id, permalink_url: v.order.permalink_url };
  const discounts = ucpDiscounts(v);
  if (discounts) out.discounts = discounts;
  return out;
}
