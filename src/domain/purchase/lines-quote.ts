/**
 * Quoting several lines in one purchase (docs/purchase-spine.md, "Several lines in one purchase"): every line's tier
 * checked as a single-tier quote checks it, availability per pool over the lines sharing it, one total (the shop's fee
 * per ticket) authorized once. A call naming `tierId` and `quantity` is the single-tier quote, unchanged.
 */
import { ToolError } from '../../kernel/errors.ts';
import { Quote, type PurchaseLineRow, type QuoteRow } from '../../storage/entities/purchase.ts';
import type { ShopRow, TierRow } from '../../storage/entities/catalog.ts';
import { newId } from '../../storage/ids.ts';
import { readTierOffer } from '../../storage/offer-read.ts';
import { insertPlainRow } from '../../storage/plain-rows.ts';
import { checkTierOffered } from '../catalog/catalog-changes.ts';
import { checkRestrictions } from '../catalog/restrictions.ts';
import type { ToolContext } from '../context.ts';
import { MAX_LINES, MAX_PLACES } from './lines.ts';
import { authorizePurchase, ownershipOf } from './purchase-access.ts';
import { createQuote, MAX_TOTAL_MINOR, QUOTE_TTL_MS, sellable } from './quotes.ts';
import { quoteTax, recordQuoteTax } from './quote-tax.ts';
import { withAttendeeQuestions } from './attendees.ts';
import { buyerKeyOf, discountColumns, discountForQuote } from './discounts.ts';

/** A quote request: one tier (`tierId` and `quantity`) or several `lines`, exactly one of the two. */
export interface QuoteRequest {
  tierId?: string | undefined;
  quantity?: number | undefined;
  lines?: { tierId: string; quantity: number }[] | undefined;
  country?: string | undefined;
  scheme?: string | undefined;
  /** A discount code and the payer's e-mail for its per-buyer limit (discounts.ts). */
  discountCode?: string | undefined;
  buyerEmail?: string | undefined;
}

const invalid = (message: string) => new ToolError('invalid_input', message, { field: 'lines' });

/** Quotes one tier (the quote as it always was) or several lines; exactly one of the two must be named. */
export async function quoteRequest(ctx: ToolContext, input: QuoteRequest): Promise<QuoteRow> {
  const { tierId, quantity, lines, country, scheme } = input;
  if (lines === undefined) {
    if (tierId === undefined || quantity === undefined)
      throw new ToolError('invalid_input', 'Name tierId and quantity, or lines.', {
        field: tierId === undefined ? 'tierId' : 'quantity',
      });
    return createQuote(ctx, input as { tierId: string; quantity: number });
  }
  if (tierId !== undefined || quantity !== undefined) throw invalid('Name either tierId and quantity, or lines.');
  return createLinesQuote(ctx, {
    lines,
    country,
    scheme,
    discountCode: input.discountCode,
    buyerEmail: input.buyerEmail,
  });
}

/** Prices several lines of one event and stores one quote for them all (its `lines`). */
async function createLinesQuote(
  ctx: ToolContext,
  input: Omit<QuoteRequest, 'tierId' | 'quantity' | 'lines'> & { lines: { tierId: string; quantity: number }[] },
): Promise<QuoteRow> {
  const { em, clock } = ctx;
  const now = clock.now();
  const asked = input.lines;
  if (asked.length < 1 || asked.length > MAX_LINES) throw invalid(`1 to ${MAX_LINES} lines.`);
  if (new Set(asked.map((l) => l.tierId)).size !== asked.length) throw invalid('Each tier at most once.');
  const places = asked.reduce((n, l) => n + l.quantity, 0);
  if (places > MAX_PLACES) throw invalid(`At most ${MAX_PLACES} places in one purchase.`);
  const priced: { tier: TierRow; shop: ShopRow; available: number; quantity: number }[] = [];
  for (const line of asked) {
    const offer = await readTierOffer(em, line.tierId);
    const { tier, shop } = sellable(ctx, line.tierId, offer?.tier, offer?.shop);
    checkTierOffered(tier, tier.retiredAt ? undefined : offer?.event);
    const first = priced[0];
    if (first && tier.eventId !== first.tier.eventId) throw invalid('All lines must be tiers of one event.');
    if (first && tier.currency !== first.tier.currency) throw invalid('All lines must be in one currency.');
    checkRestrictions(tier, { quantity: line.quantity, country: input.country, scheme: input.scheme }, now);
    priced.push({ tier, shop, available: offer?.available ?? 0, quantity: line.quantity });
  }
  // Availability per pool: lines of tiers that share a pool take from the same places.
  const wanted = new Map<string, number>();
  for (const p of priced) wanted.set(p.tier.poolId, (wanted.get(p.tier.poolId) ?? 0) + p.quantity);
  for (const p of priced) {
    const requested = wanted.get(p.tier.poolId)!;
    if (p.available < requested) {
      throw new ToolError('sold_out', undefined, { available: p.available, requested, tierId: p.tier.id });
    }
  }
  const { tier, shop } = priced[0]!;
  const lines: PurchaseLineRow[] = priced.map((p) => ({
    tierId: p.tier.id,
    poolId: p.tier.poolId,
    quantity: p.quantity,
    unitPriceMinor: p.tier.priceMinor,
    subtotalMinor: p.tier.priceMinor * p.quantity,
  }));
  const feesMinor = shop.feePerTicketMinor * places;
  // A discount code comes off the lines before tax (discounts.ts); no statement without a code.
  const discount = input.discountCode
    ? await discountForQuote(em, input.discountCode, {
        shopId: shop.id,
        currency: tier.currency,
        lines,
        buyerKey: buyerKeyOf(ownershipOf(ctx.principal).buyerId, input.buyerEmail),
        now,
      })
    : undefined;
  const off = (i: number) => discount?.perLineMinor[i] ?? 0;
  const tax = quoteTax(
    shop,
    lines.map((l, i) => ({
      ...l,
      netOrGrossMinor: l.subtotalMinor - off(i),
      taxRateId: priced[i]!.tier.taxRateId ?? null,
    })),
  );
  const subtotal = lines.reduce((n, l) => n + l.subtotalMinor, 0) - (discount?.discountMinor ?? 0);
  const totalMinor = subtotal + feesMinor + (tax?.addedMinor ?? 0);
  if (totalMinor > MAX_TOTAL_MINOR) throw invalid('The total is too large for one purchase.');
  await authorizePurchase(ctx, { shop, amountMinor: totalMinor, currency: tier.currency, stage: 'quote' });
  // The row as a single-tier quote's, for its first line (tier, pool, unit price) and all its places; `lines` splits it.
  // Columns other features add (a discount, …) are absent here: written as their defaults (null).
  const quote = {
    id: newId('quote', now),
    shopId: shop.id,
    organizationId: shop.organizationId,
    ...ownershipOf(ctx.principal),
    eventId: tier.eventId,
    tierId: tier.id,
    poolId: tier.poolId,
    quantity: places,
    country: input.country ?? null,
    scheme: input.scheme ?? null,
    unitPriceMinor: tier.priceMinor,
    feesMinor,
    totalMinor,
    currency: tier.currency,
    lines,
    reservationId: null,
    ...(discount && discountColumns(discount)),
    expiresAt: new Date(now.getTime() + QUOTE_TTL_MS),
    createdAt: now,
  } as QuoteRow;
  await insertPlainRow(em, Quote, quote);
  const tiers = priced.map((p) => p.tier);
  withAttendeeQuestions(quote, tiers); // what each tier asks per ticket, for the output (attendees.ts)
  if (tax) await recordQuoteTax(em, quote.id, tax);
  return tax ? Object.assign(quote, { tax }) : quote;
}
