/**
 * Which `$.line_items[i]` a hold refusal of a session of several items is about (issue #37): the refused tier's
 * position among the session's items. A one-item session keeps `$.line_items[0]`.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ToolError } from '../../kernel/errors.ts';
import { Tier } from '../../storage/entities/catalog.ts';

/** One line of a session: its tier and the places it asks for. */
interface Line {
  tierId: string;
  quantity: number;
}

/**
 * The JSON path of the item a refusal names: by its `details.tierId`; `quantity_over_limit` (which names no tier) by
 * the first line over its tier's limit, as the quote checks them in order (one read, only on that refusal). When no
 * line can be told, the items as a whole (`$.line_items`).
 */
export async function refusedItem(
  em: EntityManager,
  err: ToolError,
  lines: readonly Line[] | null | undefined,
): Promise<string> {
  if (!lines || lines.length < 2) return '$.line_items[0]';
  const tierId = err.details?.tierId;
  let at = typeof tierId === 'string' ? lines.findIndex((l) => l.tierId === tierId) : -1;
  if (at < 0 && err.code === 'quantity_over_limit') {
    const tiers = await em.find(Tier, { id: { $in: lines.map((l) => l.tierId) } });
    const max = (id: string) => tiers.find((t) => t.id === id)?.maxQtyPerPurchase ?? null;
    at = lines.findIndex((l) => max(l.tierId) !== null && l.quantity > max(l.tierId)!);
  }
  return at < 0 ? '$.line_items' : `$.line_items[${at}]`;
}
