/** Wire schemas of a multi-line purchase's lines (docs/purchase-spine.md, "Several lines in one purchase"). */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { MAX_LINES, MAX_PLACES } from '../../domain/purchase/lines.ts';

/** `quote`'s `lines`: several tiers of one event, each at most once. */
export const LinesIn = z
  .array(
    z.strictObject({
      tierId: IdRef.describe('The tier (tier_…), from get_event.'),
      quantity: z.number().int().min(1).max(MAX_PLACES).describe('How many places of this tier.'),
    }),
  )
  .min(1)
  .max(MAX_LINES)
  .describe(
    `Several tiers of one event in one purchase (1-${MAX_LINES}, each tier once), instead of tierId and quantity.`,
  );

/** A quote's or reservation's lines, present only when it was quoted with `lines`. */
export const LinesOut = z
  .array(
    z.object({
      tierId: z.string(),
      poolId: z.string(),
      quantity: z.number().int(),
      unitPriceMinor: z.number().int(),
      subtotalMinor: z.number().int().describe('unitPriceMinor × quantity.'),
    }),
  )
  .max(MAX_LINES)
  .optional()
  .describe('Per line (only for a purchase quoted with `lines`): tier, pool, quantity and price.');
