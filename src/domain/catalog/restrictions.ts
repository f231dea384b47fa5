/** A tier's sale restrictions, each refused with its own code; checked at quote and again at reserve. */
import type { TierRow } from '../../storage/entities/catalog.ts';
import { ToolError, type ErrorCode } from '../../kernel/errors.ts';

/** Every code a tier restriction (or the pool) may refuse a purchase with: for the tools' `errors` lists. */
export const RESTRICTION_ERRORS = [
  'not_sellable',
  'not_on_sale_yet',
  'sale_ended',
  'quantity_over_limit',
  'country_required',
  'geo_not_allowed',
  'scheme_required',
  'scheme_not_allowed',
  'sold_out',
  'event_cancelled',
  'tier_retired',
] as const satisfies readonly ErrorCode[];

/** Refuses an on-sale window that ends before (or when) it starts; `field` names the field the caller changed. */
export function refuseInvertedOnSaleWindow(
  start: string | Date | null | undefined,
  end: string | Date | null | undefined,
  field: 'onSaleStart' | 'onSaleEnd' = 'onSaleEnd',
): void {
  if (start && end && new Date(end) <= new Date(start))
    throw new ToolError('invalid_input', 'onSaleEnd must be after onSaleStart.', { field });
}

export interface PurchaseRequest {
  quantity: number;
  country?: string | null | undefined;
  scheme?: string | null | undefined;
}

/** Throws the first restriction the request breaks at `now`; returns when the tier may be sold. */
export function checkRestrictions(tier: TierRow, req: PurchaseRequest, now: Date): void {
  if (!tier.sellable) throw new ToolError('not_sellable', undefined, { tierId: tier.id });
  if (tier.onSaleStart && now < new Date(tier.onSaleStart)) {
    throw new ToolError('not_on_sale_yet', undefined, {
      tierId: tier.id,
      onSaleStart: new Date(tier.onSaleStart).toISOString(),
    });
  }
  if (tier.onSaleEnd && now >= new Date(tier.onSaleEnd)) {
    throw new ToolError('sale_ended', undefined, {
      tierId: tier.id,
      onSaleEnd: new Date(tier.onSaleEnd).toISOString(),
    });
  }
  if (tier.maxQtyPerPurchase != null && req.quantity > tier.maxQtyPerPurchase) {
    throw new ToolError('quantity_over_limit', `At most ${tier.maxQtyPerPurchase} per purchase.`, {
      maxQtyPerPurchase: tier.maxQtyPerPurchase,
      quantity: req.quantity,
    });
  }
  checkListed('country', tier.allowedGeos, req.country, 'country_required', 'geo_not_allowed');
  checkScheme(tier, req.scheme);
}

/** The card scheme must be one the tier accepts (when it lists any); also applied to the payment method at confirm. */
export function checkScheme(tier: TierRow, scheme: string | null | undefined): void {
  checkListed('scheme', tier.allowedSchemes, scheme, 'scheme_required', 'scheme_not_allowed');
}

function checkListed(
  field: 'country' | 'scheme',
  allowed: readonly string[],
  value: string | null | undefined,
  missing: 'country_required' | 'scheme_required',
  refused: 'geo_not_allowed' | 'scheme_not_allowed',
): void {
  if (allowed.length === 0) return;
  const details = field === 'country' ? { allowedGeos: [...allowed] } : { allowedSchemes: [...allowed] };
  if (!value) throw new ToolError(missing, undefined, { field, ...details });
  if (!allowed.includes(value)) throw new ToolError(refused, undefined, { field, [field]: value, ...details });
}
