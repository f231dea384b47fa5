/**
 * A quote's tax (src/domain/purchase/quotes.ts): computed from the shop's tax settings, read with the shop in the
 * statement the quote already runs, and stored beside the quote (`quote_taxes`) only for shops with tax, whose invoice
 * copies it when the order completes. A shop without tax settings costs nothing here: no statement, no output field.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ShopRow } from '../../storage/entities/catalog.ts';
import { sql } from '../../storage/database.ts';
import { computeTax, taxSettingsOf, type TaxBreakdown, type TaxLine } from './tax.ts';

/** The tax of a quote's lines at `shop`, or undefined when the shop has no tax settings. */
export function quoteTax(shop: Pick<ShopRow, 'taxSettings'>, lines: readonly TaxLine[]): TaxBreakdown | undefined {
  const settings = taxSettingsOf(shop.taxSettings);
  return settings ? computeTax(settings, lines) : undefined;
}

/** Stores a quote's breakdown (one insert; only called when the shop has tax). */
export async function recordQuoteTax(em: EntityManager, quoteId: string, tax: TaxBreakdown): Promise<void> {
  await sql(em, 'insert into quote_taxes (quote_id, tax) values (?, ?)', [quoteId, JSON.stringify(tax)]);
}
