/**
 * The order e-mail of a multi-line purchase (docs/purchase-spine.md, "Several lines in one purchase"): a receipt line
 * per tier and each ticket's own tier. An order of one tier reads nothing here.
 */
import type { Database } from '../../storage/database.ts';
import type { PurchaseLineRow } from '../../storage/entities/purchase.ts';

/** What the confirmation e-mail adds for several lines: each line's tier name, quantity and price; each ticket's tier. */
export async function mailLines(
  db: Pick<Database, 'execute'>,
  lines: readonly PurchaseLineRow[] | null,
  tickets: readonly { id: string; tier_id?: string }[],
): Promise<{
  lines?: { tier: string; quantity: number; unitPriceMinor: number }[];
  tierOf?: (ticketId: string) => string | undefined;
}> {
  if (!lines?.length) return {};
  const ids = lines.map((l) => l.tierId);
  const rows = await db.execute<{ id: string; name: string }>(
    `select id, name from tiers where id in (${ids.map(() => '?').join(', ')})`,
    ids,
  );
  const name = (tierId: string) => rows.find((r) => r.id === tierId)?.name ?? tierId;
  return {
    lines: lines.map((l) => ({ tier: name(l.tierId), quantity: l.quantity, unitPriceMinor: l.unitPriceMinor })),
    tierOf: (ticketId) => {
      const tierId = tickets.find((t) => t.id === ticketId)?.tier_id;
      return tierId ? name(tierId) : undefined;
    },
  };
}
