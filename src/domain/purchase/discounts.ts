/**
 * Discount codes at the quote (docs/discount-codes.md): the pricing rule (a pure function over a purchase's lines) and
 * the checks a code passes before a quote may carry it. Uses are taken at reserve (discount-uses.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ToolError } from '../../kernel/errors.ts';
import { DiscountCode, type DiscountCodeRow, type DiscountKind } from '../../storage/entities/discount.ts';
import { sql } from '../../storage/database.ts';
import { normalizeCode } from '../catalog/discount-codes.ts';

export { normalizeCode };

/** One priced line of a purchase: the tier, its unit price and how many. */
export interface DiscountLine {
  tierId: string;
  unitPriceMinor: number;
  quantity: number;
}

/** What a code takes off: a percentage (1–100) or a fixed amount, on some tiers (null: all). */
export interface DiscountTerms {
  kind: DiscountKind;
  percentOff?: number | null | undefined;
  amountOffMinor?: number | null | undefined;
  tierIds?: readonly string[] | null | undefined;
}

/** A discount priced over lines: the amount off each line (same order) and in total. */
export interface PricedDiscount {
  perLineMinor: number[];
  totalMinor: number;
  /** Whether any line is one the code applies to. */
  applies: boolean;
}

/**
 * Prices a discount over a purchase's lines (subtotal = unit price × quantity). Percent: each applicable line's
 * subtotal × percent / 100, rounded down. Fixed: the amount, capped at the applicable subtotal (a total never goes
 * below zero), spread over the applicable lines in proportion to their subtotals, rounded down, the cents left over
 * given one each to the applicable lines in their order (deterministic; the parts sum to the amount).
 */
export function priceDiscount(terms: DiscountTerms, lines: readonly DiscountLine[]): PricedDiscount {
  const applicable = lines.map((l) => !terms.tierIds || terms.tierIds.includes(l.tierId));
  const subtotals = lines.map((l, i) => (applicable[i] ? l.unitPriceMinor * l.quantity : 0));
  const base = subtotals.reduce((a, b) => a + b, 0);
  let perLineMinor: number[];
  if (terms.kind === 'percent') {
    perLineMinor = subtotals.map((s) => Math.floor((s * (terms.percentOff ?? 0)) / 100));
  } else {
    const amount = Math.min(terms.amountOffMinor ?? 0, base);
    perLineMinor = subtotals.map((s) => (base === 0 ? 0 : Math.floor((amount * s) / base)));
    // Fewer cents are left than lines with a fraction rounded away, so one pass hands them all out.
    let left = amount - perLineMinor.reduce((a, b) => a + b, 0);
    for (let i = 0; left > 0 && i < lines.length; i++) {
      if (!applicable[i] || perLineMinor[i]! >= subtotals[i]!) continue;
      perLineMinor[i]! += 1;
      left -= 1;
    }
  }
  return { perLineMinor, totalMinor: perLineMinor.reduce((a, b) => a + b, 0), applies: applicable.some(Boolean) };
}

/** Whose per-buyer uses a purchase counts against: its buyer, else the payer's e-mail given with the quote. */
export function buyerKeyOf(buyerId: string | null | undefined, buyerEmail: string | undefined): string | null {
  if (buyerId) return `buyer:${buyerId}`;
  return buyerEmail ? `email:${buyerEmail.trim().toLowerCase()}` : null;
}

/** The refusal for a code that cannot be used, with its reason (docs/errors.md). */
export function codeRefused(reason: string, details: Record<string, unknown> = {}): ToolError {
  return new ToolError('discount_code_invalid', undefined, { reason, ...details });
}

/** The discount a quote carries: the code's id, the amount off, whose uses it counts, and the code's text. */
export interface QuoteDiscount {
  discountCodeId: string;
  discountMinor: number;
  /** The amount off each line, in the lines' order (tax is computed on the lines net of it). */
  perLineMinor: number[];
  discountBuyerKey: string | null;
  code: string;
}

/** What a quote asks of a code: the shop, the currency, the lines, the buyer, and when. */
export interface QuoteDiscountInput {
  shopId: string;
  currency: string;
  lines: readonly DiscountLine[];
  buyerKey: string | null;
  now: Date;
}

/**
 * Checks `code` for a quote and prices it (one read of the code, one count when it has a per-buyer limit); refuses
 * with `discount_code_invalid` and a reason. Whether a use is still free is decided again, under lock, at reserve.
 */
export async function discountForQuote(em: EntityManager, code: string, q: QuoteDiscountInput): Promise<QuoteDiscount> {
  const text = normalizeCode(code);
  const row = await em.findOne(DiscountCode, { shopId: q.shopId, code: text, deletedAt: null });
  if (!row) throw codeRefused('unknown', { code: text });
  usableNow(row, q.now);
  if (row.kind === 'fixed' && row.currency !== q.currency)
    throw codeRefused('currency_mismatch', { code: text, currency: row.currency });
  const priced = priceDiscount(row, q.lines);
  if (!priced.applies) throw codeRefused('not_applicable', { code: text });
  if (row.maxUsesPerBuyer != null) {
    if (!q.buyerKey) throw codeRefused('buyer_required', { code: text });
    const used = await usesByBuyer(em, row.id, q.buyerKey);
    if (used >= row.maxUsesPerBuyer)
      throw codeRefused('buyer_limit', { code: text, maxUsesPerBuyer: row.maxUsesPerBuyer });
  }
  const { totalMinor: discountMinor, perLineMinor } = priced;
  return { discountCodeId: row.id, discountMinor, perLineMinor, discountBuyerKey: q.buyerKey, code: text };
}

/** Refuses a code that is disabled, outside its window or out of uses at `now`. */
export function usableNow(
  row: Pick<DiscountCodeRow, 'code' | 'disabledAt' | 'startsAt' | 'endsAt' | 'maxUses' | 'uses'>,
  now: Date,
): void {
  const code = row.code;
  if (row.disabledAt) throw codeRefused('disabled', { code });
  if (row.startsAt && row.startsAt > now)
    throw codeRefused('not_started', { code, startsAt: row.startsAt.toISOString() });
  if (row.endsAt && row.endsAt <= now) throw codeRefused('expired', { code, endedAt: row.endsAt.toISOString() });
  if (row.maxUses != null && row.uses >= row.maxUses) throw codeRefused('exhausted', { code, maxUses: row.maxUses });
}

/** How many uses of a code a buyer holds now (live holds and completed purchases). */
export async function usesByBuyer(em: EntityManager, codeId: string, buyerKey: string): Promise<number> {
  const [row] = await sql<{ n: number }>(
    em,
    `select count(*)::int as n from discount_uses where code_id = ? and buyer_key = ? and state = 'held'`,
    [codeId, buyerKey],
  );
  return row?.n ?? 0;
}

/** A quote's discount columns (the code's text is not stored: the code's row has it). */
export function discountColumns(d: QuoteDiscount) {
  return { discountCodeId: d.discountCodeId, discountMinor: d.discountMinor, discountBuyerKey: d.discountBuyerKey };
}
