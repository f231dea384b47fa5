/** The wire schema of a purchase's tax breakdown (quote, invoices). */
import { z } from 'zod';

const Minor = z.number().int();

/** Per rate and in total; present only when the shop has tax settings. */
export const TaxOut = z
  .object({
    pricesIncludeTax: z.boolean().describe('true: the prices included the tax; false: the tax was added to them.'),
    rates: z
      .array(
        z.object({
          rateId: z.string().max(32),
          name: z.string().max(60),
          percent: z.number(),
          netMinor: Minor,
          taxMinor: Minor,
          grossMinor: Minor,
        }),
      )
      .max(10),
    netMinor: Minor,
    taxMinor: Minor,
    grossMinor: Minor,
  })
  .describe('The tax per rate (rounded per line) and in total; fees carry no tax.');
