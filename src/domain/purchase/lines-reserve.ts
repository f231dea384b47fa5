/**
 * The reserve rule's part for a multi-line quote (docs/purchase-spine.md, "Several lines in one purchase"): the lines
 * beyond the first are checked again as the first is (still offered, their restrictions), and at confirm the card's
 * scheme against each of their tiers. A single-tier purchase reads nothing here.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Tier, type EventRow } from '../../storage/entities/catalog.ts';
import type { QuoteRow, ReservationRow } from '../../storage/entities/purchase.ts';
import { ToolError } from '../../kernel/errors.ts';
import { checkTierOffered } from '../catalog/catalog-changes.ts';
import { checkRestrictions, checkScheme } from '../catalog/restrictions.ts';

/** Checks a multi-line quote's other lines' tiers (one read); throws the first refusal, as a quote would. */
export async function checkOtherLines(
  em: EntityManager,
  quote: QuoteRow,
  event: EventRow | null | undefined,
  now: Date,
): Promise<void> {
  const others = (quote.lines ?? []).filter((l) => l.tierId !== quote.tierId);
  if (!others.length) return;
  const tiers = new Map((await em.find(Tier, { id: { $in: others.map((l) => l.tierId) } })).map((t) => [t.id, t]));
  for (const line of others) {
    const tier = tiers.get(line.tierId);
    if (!tier) throw new ToolError('not_found', `No quote ${quote.id}.`, { id: quote.id });
    checkTierOffered(tier, tier.retiredAt ? undefined : event);
    checkRestrictions(tier, { quantity: line.quantity, country: quote.country, scheme: quote.scheme }, now);
  }
}

/** At confirm: the payment method's card scheme must be one every other line's tier accepts (one read, multi-line only). */
export async function checkOtherLineSchemes(em: EntityManager, r: ReservationRow, scheme: string): Promise<void> {
  const others = (r.lines ?? []).filter((l) => l.tierId !== r.tierId);
  if (!others.length) return;
  for (const tier of await em.find(Tier, { id: { $in: others.map((l) => l.tierId) } })) checkScheme(tier, scheme);
}
