/**
 * Tax arithmetic, pure: a shop's tax settings as stored, and the breakdown (per rate: net, tax, gross) of priced lines.
 * Pricing order (issue #37): line subtotals → discount → tax on the discounted line amounts → fees (no tax on fees).
 * Each line is rounded on its own (half away from zero, in minor units), then lines are summed per rate.
 */

/** One tax rate of a shop, e.g. `{ id: 'standard', name: 'VAT 19 %', percent: 19 }`. */
export interface TaxRate {
  id: string;
  name: string;
  /** 0-100, at most two decimals. */
  percent: number;
}

/** The seller's details printed on invoices. */
export interface SellerDetails {
  legalName: string;
  address: string;
  vatId?: string | undefined;
}

/** A shop's tax settings (`shops.tax_settings`). */
export interface TaxSettings {
  /** true: tier prices include the tax (it is extracted); false: the tax is added on top. */
  pricesIncludeTax: boolean;
  rates: TaxRate[];
  /** The rate of tiers that name none. */
  defaultRateId: string;
  /** Whether each completed order gets a numbered invoice (and each refund a credit note). */
  invoicing: boolean;
  invoicePrefix: string;
  seller?: SellerDetails | undefined;
}

/** A priced line to tax: its amount after any discount (net when prices exclude tax, gross when they include it). */
export interface TaxLine {
  tierId: string;
  netOrGrossMinor: number;
  quantity: number;
  /** null: the shop's default rate. */
  taxRateId: string | null;
}

/** One rate's share of a purchase. */
export interface TaxRateTotal {
  rateId: string;
  name: string;
  percent: number;
  netMinor: number;
  taxMinor: number;
  grossMinor: number;
}

/** A purchase's tax: per rate and in total; `addedMinor` is what the tax adds to the price (0 when included). */
export interface TaxBreakdown {
  pricesIncludeTax: boolean;
  rates: TaxRateTotal[];
  netMinor: number;
  taxMinor: number;
  grossMinor: number;
  addedMinor: number;
}

/** A stored `tax_settings` value as TaxSettings; undefined when the shop has none (no tax, no invoices). */
export function taxSettingsOf(stored: unknown): TaxSettings | undefined {
  if (!stored || typeof stored !== 'object') return undefined;
  const s = (typeof stored === 'string' ? JSON.parse(stored) : stored) as TaxSettings;
  return Array.isArray(s.rates) && s.rates.length > 0 ? s : undefined;
}

/** `amount × bp / divisor`, rounded half away from zero, in integers (bp: the percent × 100). */
function share(amount: number, bp: number, divisor: number): number {
  const exact = (amount * bp) / divisor;
  return Math.sign(exact) * Math.round(Math.abs(exact));
}

/** The tax of each line under `settings`, summed per rate in the order the shop lists its rates. */
export function computeTax(settings: TaxSettings, lines: readonly TaxLine[]): TaxBreakdown {
  const byId = new Map(settings.rates.map((r) => [r.id, r]));
  const totals = new Map<string, TaxRateTotal>();
  for (const line of lines) {
    const rate = byId.get(line.taxRateId ?? settings.defaultRateId) ?? byId.get(settings.defaultRateId)!;
    const bp = Math.round(rate.percent * 100);
    const amount = line.netOrGrossMinor;
    const tax = settings.pricesIncludeTax ? share(amount, bp, 10_000 + bp) : share(amount, bp, 10_000);
    const net = settings.pricesIncludeTax ? amount - tax : amount;
    const t = totals.get(rate.id) ?? {
      rateId: rate.id,
      name: rate.name,
      percent: rate.percent,
      netMinor: 0,
      taxMinor: 0,
      grossMinor: 0,
    };
    t.netMinor += net;
    t.taxMinor += tax;
    t.grossMinor += net + tax;
    totals.set(rate.id, t);
  }
  const rates = settings.rates.flatMap((r) => totals.get(r.id) ?? []);
  const sum = (k: 'netMinor' | 'taxMinor' | 'grossMinor') => rates.reduce((n, r) => n + r[k], 0);
  const taxMinor = sum('taxMinor');
  return {
    pricesIncludeTax: settings.pricesIncludeTax,
    rates,
    netMinor: sum('netMinor'),
    taxMinor,
    grossMinor: sum('grossMinor'),
    addedMinor: settings.pricesIncludeTax ? 0 : taxMinor,
  };
}

/** A breakdown scaled to a part of the purchase (a refund of `partMinor` of `wholeMinor`), rounded per rate. */
export function scaleTax(tax: TaxBreakdown, partMinor: number, wholeMinor: number): TaxBreakdown {
  if (wholeMinor <= 0 || partMinor === wholeMinor) return tax;
  const part = (n: number) => Math.round((n * partMinor) / wholeMinor);
  const rates = tax.rates.map((r) => {
    const grossMinor = part(r.grossMinor);
    const taxMinor = part(r.taxMinor);
    return { ...r, grossMinor, taxMinor, netMinor: grossMinor - taxMinor };
  });
  const sum = (k: 'netMinor' | 'taxMinor' | 'grossMinor') => rates.reduce((n, r) => n + r[k], 0);
  return {
    ...tax,
    rates,
    netMinor: sum('netMinor'),
    taxMinor: sum('taxMinor'),
    grossMinor: sum('grossMinor'),
    addedMinor: 0,
  };
}
