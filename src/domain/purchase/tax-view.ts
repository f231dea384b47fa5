/** A purchase's tax as callers read it: the optional `tax` field of a quote and an order (absent without tax). */
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../storage/database.ts';
import type { TaxBreakdown } from './tax.ts';

/** The wire form of a breakdown. */
export function taxView(tax: TaxBreakdown) {
  return {
    pricesIncludeTax: tax.pricesIncludeTax,
    rates: tax.rates.map((r) => ({ ...r })),
    netMinor: tax.netMinor,
    taxMinor: tax.taxMinor,
    grossMinor: tax.grossMinor,
  };
}

/**
 * The fields a quote view gains when its shop has tax: `tax`, and `subtotalMinor` kept as the price before any tax
 * added on top (`totalMinor` = subtotalMinor + tax added + feesMinor). Nothing for a quote without tax.
 */
export function taxField(q: { totalMinor: number; feesMinor: number; tax?: TaxBreakdown | undefined }) {
  if (!q.tax) return {};
  return { subtotalMinor: q.totalMinor - q.feesMinor - q.tax.addedMinor, tax: taxView(q.tax) };
}

/**
 * The `tax` field of an order (get_order) or a reservation (get_reservation), by the reservation's id: its quote's
 * breakdown when its shop had tax at the time; nothing otherwise.
 */
export async function orderTaxField(em: EntityManager, reservationId: string) {
  const [row] = await sql<{ tax: TaxBreakdown }>(
    em,
    `select t.tax from quotes q join quote_taxes t on t.quote_id = q.id where q.reservation_id = ? limit 1`,
    [reservationId],
  );
  return row ? { tax: taxView(row.tax) } : {};
}
