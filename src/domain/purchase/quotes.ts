/** Quotes: price a tier for a quantity and check every restriction; holds nothing. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Shop, Tier, type ShopRow, type TierRow } from '../../storage/entities/catalog.ts';
import { Quote, type QuoteRow } from '../../storage/entities/purchase.ts';
import { newId } from '../../storage/ids.ts';
import { mayAccessShop } from '../catalog/access.ts';
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { authorizePurchase, ownershipOf } from './purchase-access.ts';
import { checkRestrictions } from '../catalog/restrictions.ts';
import { checkTierOffered } from '../catalog/catalog-changes.ts';
import { readTierOffer, tierOfferReads } from '../../storage/offer-read.ts';
import { insertPlainRow } from '../../storage/plain-rows.ts';
import { plainRowGroups } from '../../storage/plain-row-groups.ts';
import { buyerKeyOf, discountColumns, discountForQuote } from './discounts.ts';
import { quoteTax, recordQuoteTax } from './quote-tax.ts';
import type { TaxBreakdown } from './tax.ts';
import { waitingListHint } from './waiting-list-view.ts';
import { withAttendeeQuestions } from './attendees.ts';

/** How long a quote may be turned into a reservation. */
export const QUOTE_TTL_MS = 15 * 60 * 1000;
/** Amounts are stored as 32-bit integers; a total beyond this is refused. */
export const MAX_TOTAL_MINOR = 2_000_000_000;

export interface QuoteInput {
  tierId: string;
  quantity: number;
  country?: string | undefined;
  scheme?: string | undefined;
  /** A discount code of the shop (discounts.ts), and the payer's e-mail for its per-buyer limit. */
  discountCode?: string | undefined;
  buyerEmail?: string | undefined;
}

/** A tier and its live shop, when the principal may buy from that shop; otherwise `not_found`. */
export async function requireSellableTier(
  em: EntityManager,
  ctx: Pick<ToolContext, 'principal'>,
  tierId: string,
): Promise<{ tier: TierRow; shop: ShopRow }> {
  const tier = await em.findOne(Tier, { id: tierId });
  const shop = tier ? await em.findOne(Shop, { id: tier.shopId, deletedAt: null }) : null;
  return sellable(ctx, tierId, tier, shop);
}

/** The tier and its live shop when both exist and the principal may buy from that shop; otherwise `not_found`. */
export function sellable(
  ctx: Pick<ToolContext, 'principal'>,
  tierId: string,
  tier: TierRow | null | undefined,
  shop: ShopRow | null | undefined,
): { tier: TierRow; shop: ShopRow } {
  if (!tier || !shop || (ctx.principal.kind !== 'agent' && !mayAccessShop(ctx.principal, shop))) {
    throw new ToolError('not_found', `No tier ${tierId}.`, { tierId });
  }
  return { tier, shop };
}

/** Prices `quantity` places of a tier (fees = shop fee per ticket × quantity) and stores a single-use quote. */
export async function createQuote(ctx: ToolContext, input: QuoteInput): Promise<QuoteRow & { tax?: TaxBreakdown }> {
  const { em, clock } = ctx;
  const now = clock.now();
  // One statement reads the tier, its live shop, its event and the pool's available places; outside a transaction,
  // one statement for the quotes arriving together.
  const offer = em.isInTransaction()
    ? await readTierOffer(em, input.tierId)
    : await tierOfferReads(ctx.services.db).read(input.tierId);
  const { tier, shop } = sellable(ctx, input.tierId, offer?.tier, offer?.shop);
  checkTierOffered(tier, tier.retiredAt ? undefined : offer?.event); // a retired tier is refused whatever its event
  checkRestrictions(tier, input, now);
  const available = offer?.available ?? 0;
  if (available < input.quantity)
    throw new ToolError('sold_out', undefined, { available, requested: input.quantity, ...waitingListHint(tier) });
  const feesMinor = shop.feePerTicketMinor * input.quantity;
  // A discount code comes off the subtotal before tax (docs/discount-codes.md); no statement without a code.
  const discount = input.discountCode
    ? await discountForQuote(em, input.discountCode, {
        shopId: shop.id,
        currency: tier.currency,
        lines: [{ tierId: tier.id, unitPriceMinor: tier.priceMinor, quantity: input.quantity }],
        buyerKey: buyerKeyOf(ownershipOf(ctx.principal).buyerId, input.buyerEmail),
        now,
      })
    : undefined;
  const subtotal = tier.priceMinor * input.quantity - (discount?.discountMinor ?? 0);
  const tax = quoteTax(shop, [
    { tierId: tier.id, netOrGrossMinor: subtotal, quantity: input.quantity, taxRateId: tier.taxRateId ?? null },
  ]);
  const totalMinor = subtotal + feesMinor + (tax?.addedMinor ?? 0);
  if (totalMinor > MAX_TOTAL_MINOR)
    throw new ToolError('invalid_input', 'The total is too large for one purchase.', { field: 'quantity' });
  await authorizePurchase(ctx, { shop, amountMinor: totalMinor, currency: tier.currency, stage: 'quote' });
  // One insert statement, outside the unit of work: the quote tool runs without a transaction (a quote holds nothing,
  // and the reserve checks everything again), so a begin, a change-set and a commit are saved per quote; and the
  // quotes arriving while one is inserted are inserted together (one statement and one commit for the group). Inside
  // a caller's transaction (a checkout session's quote) it is that transaction's insert.
  const quote: QuoteRow = {
    id: newId('quote', now),
    shopId: shop.id,
    organizationId: shop.organizationId,
    ...ownershipOf(ctx.principal),
    eventId: tier.eventId,
    tierId: tier.id,
    poolId: tier.poolId,
    quantity: input.quantity,
    country: input.country ?? null,
    scheme: input.scheme ?? null,
    unitPriceMinor: tier.priceMinor,
    feesMinor,
    totalMinor,
    currency: tier.currency,
    lines: null,
    reservationId: null,
    ...(discount && discountColumns(discount)),
    expiresAt: new Date(now.getTime() + QUOTE_TTL_MS),
    createdAt: now,
  };
  if (em.isInTransaction()) await insertPlainRow(em, Quote, quote);
  else await plainRowGroups(ctx.services.db, Quote).insert(quote);
  if (tax) await recordQuoteTax(em, quote.id, tax);
  withAttendeeQuestions(quote, [tier]); // what the tier asks per ticket, for the output (attendees.ts)
  return tax ? Object.assign(quote, { tax }) : quote;
}
