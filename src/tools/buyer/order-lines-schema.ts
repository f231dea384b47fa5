/** The wire schema of a multi-line order's lines in lists: "My tickets" (here) and the merchant's order search. */
import { z } from 'zod';
import { MAX_LINES } from '../../domain/purchase/lines.ts';

/** A multi-line order's lines in a list (absent for an order of one tier, whose `tierName` and `quantity` say it). */
export const OrderLinesOut = z
  .array(z.object({ tierId: z.string(), tierName: z.string(), quantity: z.number().int() }))
  .max(MAX_LINES)
  .optional()
  .describe(
    'An order of several tiers: each line’s tier, name and places (`tierName` is the first’s, `quantity` all).',
  );
