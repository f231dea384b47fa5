/**
 * A shop's tax settings (docs/console.md, "Tax and invoices"): whether prices include tax, its rates (one is the
 * default; a tier may name another), invoicing on or off, the seller's details and the invoice number prefix. Stored
 * on the shop row (`tax_settings`), so the quote reads them with the shop in the statement it already runs; turning
 * invoicing on creates (or reactivates) the shop's counter row, whose number never goes back (invoices.ts).
 */
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { Tier, type ShopRow } from '../../storage/entities/catalog.ts';
import { sql } from '../../storage/database.ts';
import { requireShop } from '../catalog/access.ts';
import { taxSettingsOf, type SellerDetails, type TaxRate, type TaxSettings } from './tax.ts';

/** The prefix of invoice numbers when the merchant names none (`INV-1`, `INV-2`, …). */
export const DEFAULT_INVOICE_PREFIX = 'INV';

/** What set_tax_settings takes: the whole settings (or `enabled: false`), and optionally tiers' rates. */
export interface TaxSettingsInput {
  merchantId: string;
  enabled?: boolean | undefined;
  pricesIncludeTax?: boolean | undefined;
  rates?: TaxRate[] | undefined;
  defaultRateId?: string | undefined;
  invoicing?: boolean | undefined;
  invoicePrefix?: string | undefined;
  seller?: SellerDetails | undefined;
  tierRates?: { tierId: string; rateId: string | null }[] | undefined;
}

const invalid = (field: string, message: string) => new ToolError('invalid_input', message, { field });

/** Checks the input as a whole and returns the settings to store (undefined: tax off). */
function settingsFrom(input: TaxSettingsInput): TaxSettings | undefined {
  if (input.enabled === false) return undefined;
  const rates = input.rates ?? [];
  if (rates.length === 0) throw invalid('rates', 'Give at least one tax rate (or enabled: false).');
  const ids = new Set(rates.map((r) => r.id));
  if (ids.size !== rates.length) throw invalid('rates', 'Each rate needs its own id.');
  const defaultRateId = input.defaultRateId ?? rates[0]!.id;
  if (!ids.has(defaultRateId)) throw invalid('defaultRateId', 'defaultRateId must be the id of one of the rates.');
  const invoicing = input.invoicing ?? false;
  if (invoicing && !input.seller) throw invalid('seller', 'Invoices need the seller’s legal name and address.');
  return {
    pricesIncludeTax: input.pricesIncludeTax ?? true,
    rates: rates.map((r) => ({ id: r.id, name: r.name, percent: r.percent })),
    defaultRateId,
    invoicing,
    invoicePrefix: input.invoicePrefix ?? DEFAULT_INVOICE_PREFIX,
    ...(input.seller ? { seller: input.seller } : {}),
  };
}

/** A shop's tax settings and the tiers that name a rate of their own. */
export interface TaxSettingsView {
  merchantId: string;
  settings: TaxSettings | null;
  tierRates: { tierId: string; rateId: string }[];
}

/** Replaces a shop's tax settings (and the named tiers' rates); invoicing on keeps the shop's number sequence going. */
export async function setTaxSettings(ctx: ToolContext, input: TaxSettingsInput): Promise<TaxSettingsView> {
  const { em, principal, clock } = ctx;
  const shop = await requireShop(em, principal, input.merchantId);
  const settings = settingsFrom(input);
  const rateIds = new Set(settings?.rates.map((r) => r.id) ?? []);
  for (const [i, t] of (input.tierRates ?? []).entries()) {
    if (t.rateId !== null && !rateIds.has(t.rateId))
      throw invalid(`tierRates[${i}].rateId`, 'rateId must be the id of one of the rates (or null).');
    const tier = await em.findOne(Tier, { id: t.tierId, shopId: shop.id });
    if (!tier) throw new ToolError('not_found', `No tier ${t.tierId}.`, { tierId: t.tierId });
    tier.taxRateId = t.rateId;
  }
  shop.taxSettings = settings ? { ...settings } : null;
  shop.updatedAt = clock.now();
  await em.flush();
  if (settings?.invoicing) {
    await sql(
      em,
      `insert into invoice_counters (shop_id, prefix) values (?, ?)
       on conflict (shop_id) do update set prefix = excluded.prefix, active = true`,
      [shop.id, settings.invoicePrefix],
    );
  } else {
    await sql(em, 'update invoice_counters set active = false where shop_id = ?', [shop.id]);
  }
  return taxSettingsView(ctx, shop);
}

/** A shop's tax settings as stored, with the tiers that name their own rate. */
export async function getTaxSettings(ctx: ToolContext, merchantId: string): Promise<TaxSettingsView> {
  return taxSettingsView(ctx, await requireShop(ctx.em, ctx.principal, merchantId));
}

async function taxSettingsView({ em }: ToolContext, shop: ShopRow): Promise<TaxSettingsView> {
  const tiers = await em.find(Tier, { shopId: shop.id, taxRateId: { $ne: null } }, { orderBy: { id: 'asc' } });
  return {
    merchantId: shop.id,
    settings: taxSettingsOf(shop.taxSettings) ?? null,
    tierRates: tiers.map((t) => ({ tierId: t.id, rateId: t.taxRateId! })),
  };
}
