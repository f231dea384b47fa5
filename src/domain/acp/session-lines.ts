/**
 * Checkout sessions with several line items (ACP `line_items`, one per ticket tier of one event): the items a request
 * names, the quote that prices them all (docs/purchase-spine.md, "Several lines in one purchase") and the session's
 * line items as ACP shows them. A session of one item keeps its one-tier path unchanged.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ToolError } from '../../kernel/errors.ts';
import type { AcpCheckoutSessionRow } from '../../storage/entities/acp.ts';
import { Event, Pool, Tier } from '../../storage/entities/catalog.ts';
import type { ReservationRow } from '../../storage/entities/purchase.ts';
import { acpLineItemId } from '../purchase/acp-order-events.ts';
import { MAX_LINES } from '../purchase/lines.ts';
import type { AcpItemInput } from './request-schemas.ts';
import type { AcpCheckoutSessionOut } from './session-schema.ts';

/** What a request's items ask for: the first item, and every item when there are several (each tier once). */
export interface SessionItems {
  tierId: string;
  quantity: number;
  lines: { tierId: string; quantity: number }[] | null;
}

/** The items of a create or update request: 1 to 20, each tier at most once. */
export function itemsOf(items: readonly AcpItemInput[]): SessionItems {
  const lines = items.map((i) => ({ tierId: i.id, quantity: i.quantity ?? 1 }));
  if (lines.length < 1 || lines.length > MAX_LINES || new Set(lines.map((l) => l.tierId)).size !== lines.length) {
    throw new ToolError(
      'invalid_input',
      `A checkout session holds 1 to ${MAX_LINES} line items, one per ticket tier of one event; set each quantity.`,
      { field: 'payload.line_items' },
    );
  }
  return { ...lines[0]!, lines: lines.length > 1 ? lines : null };
}

type LineItem = AcpCheckoutSessionOut['line_items'][number];

/**
 * A session's line items when it has several: each tier's name, price (the hold's, when it holds these lines; else
 * the tier's), places left and limit. Also what they come to before fees.
 */
export async function sessionLineItems(
  em: EntityManager,
  s: AcpCheckoutSessionRow & { lines: { tierId: string; quantity: number }[] },
  r: ReservationRow | null,
): Promise<{ items: LineItem[]; base: number }> {
  const tiers = await em.find(Tier, { id: { $in: s.lines.map((l) => l.tierId) } });
  const [events, pools] = await Promise.all([
    em.find(Event, { id: { $in: [...new Set(tiers.map((t) => t.eventId))] } }),
    em.find(Pool, { id: { $in: [...new Set(tiers.map((t) => t.poolId))] } }),
  ]);
  const held = r?.lines ?? [];
  const same =
    held.length === s.lines.length &&
    s.lines.every((l, i) => held[i]?.tierId === l.tierId && held[i]?.quantity === l.quantity);
  let base = 0;
  const items = s.lines.map((l, i): LineItem => {
    const tier = tiers.find((t) => t.id === l.tierId);
    const event = events.find((e) => e.id === tier?.eventId);
    const pool = pools.find((p) => p.id === tier?.poolId);
    const unit = same ? held[i]!.unitPriceMinor : (tier?.priceMinor ?? 0);
    const amount = unit * l.quantity;
    base += amount;
    const name = tier ? (event ? `${event.title} — ${tier.name}` : tier.name) : l.tierId;
    return {
      id: acpLineItemId(l.tierId),
      item: { id: l.tierId },
      quantity: l.quantity,
      name,
      unit_amount: unit,
      ...(pool ? { available_quantity: pool.availableCount } : {}),
      ...(tier?.maxQtyPerPurchase != null ? { max_quantity_per_order: tier.maxQtyPerPurchase } : {}),
      totals: [
        { type: 'items_base_amount', display_text: 'Tickets', amount },
        { type: 'subtotal', display_text: 'Subtotal', amount },
        { type: 'total', display_text: 'Total', amount },
      ],
    };
  });
  return { items, base };
}
