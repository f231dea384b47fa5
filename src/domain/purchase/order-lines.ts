/**
 * An order of several lines as merchants and buyers read it in lists (order search, the orders export, "My tickets"):
 * each line's tier, its name and how many places, in the purchase's line order. A one-tier order has none, and its
 * answers stay as they were (its `tierId`, tier name and `quantity` say it all).
 */

/** One line of a multi-line order in a list. */
export interface OrderLine {
  tierId: string;
  tierName: string;
  quantity: number;
}

/**
 * SQL for a multi-line order's lines, with `o` the order: `order_lines`, a JSON array of `OrderLine` in line order read
 * from its reservation's `lines` and the tiers' names; null for an order of one line (one statement, no extra read).
 */
export const ORDER_LINES_COLUMN = `(select json_agg(json_build_object('tierId', ol.line->>'tierId', 'tierName', olt.name,
        'quantity', (ol.line->>'quantity')::int) order by ol.n)
     from reservations olr cross join lateral jsonb_array_elements(olr.lines) with ordinality as ol(line, n)
     join tiers olt on olt.id = ol.line->>'tierId'
    where olr.id = o.reservation_id having count(*) > 1) as order_lines`;

/** `{ lines }` of a row selected with ORDER_LINES_COLUMN, nothing for a one-line order. */
export function orderLinesField(row: { order_lines?: OrderLine[] | null }): { lines?: OrderLine[] } {
  return row.order_lines?.length ? { lines: row.order_lines } : {};
}

/** The lines in words, e.g. `2 × General admission; 1 × Child` (the export's `lines` column, the pages). */
export function linesText(lines: readonly { tierName: string; quantity: number }[]): string {
  return lines.map((l) => `${l.quantity} × ${l.tierName}`).join('; ');
}

/** A multi-line purchase's lines (a reservation's `lines`) named with `nameOf`; undefined for one line. */
export function namedLines(
  lines: readonly { tierId: string; quantity: number }[] | null | undefined,
  nameOf: (tierId: string) => string,
): OrderLine[] | undefined {
  if (!lines || lines.length < 2) return undefined;
  return lines.map((l) => ({ tierId: l.tierId, tierName: nameOf(l.tierId), quantity: l.quantity }));
}
