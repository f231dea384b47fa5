/** quote: prices a tier for a quantity and checks every restriction; holds nothing. */
import { z } from 'zod';
import { AGENT_PURCHASE_ERRORS } from '../../domain/buyers/agent-purchases.ts';
import { quoteRequest } from '../../domain/purchase/lines-quote.ts';
import { quoteView } from '../../domain/purchase/purchase-view.ts';
import { RESTRICTION_ERRORS } from '../../domain/catalog/restrictions.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { CardScheme, CountryCode, IdRef } from '../../kernel/wire.ts';
import { QuoteOut } from './schemas.ts';
import { LinesIn } from './line-schemas.ts';
import { DiscountIn } from './discount-schemas.ts';
import { withCodeText } from '../../domain/purchase/discount-view.ts';

export const quote = defineTool({
  name: 'quote',
  title: 'Quote a purchase',
  area: 'ticketing',
  description:
    'Prices `quantity` places of a tier (unit price, fees, total, in minor units) and checks its restrictions: ' +
    'sale window, `quantity_over_limit`, countries (pass `country` when the tier lists allowedGeos), card ' +
    'schemes, `sold_out`. Several tiers of one event: `lines` instead. A `discountCode` lowers the total ' +
    '(discountMinor). Holds nothing. Next: `reserve` with `quoteId` within 15 minutes.',
  input: z.strictObject({
    tierId: IdRef.optional().describe('The tier (tier_…), from get_event.'),
    quantity: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .optional()
      .describe('How many places (tickets), 1-1000; at most the tier’s maxQtyPerPurchase.'),
    lines: LinesIn.optional(),
    country: CountryCode.optional().describe('The buyer’s country, ISO 3166-1 alpha-2 (e.g. DE).'),
    scheme: CardScheme.optional().describe('The card scheme the buyer will pay with, lower case (e.g. visa).'),
    ...DiscountIn,
  }),
  example: { tierId: 'tier_01jf8k2m9q7r5t', quantity: 2, country: 'DE' },
  output: QuoteOut,
  errors: [...AGENT_PURCHASE_ERRORS, 'not_found', ...RESTRICTION_ERRORS, 'insufficient_scope', 'discount_code_invalid'],
  auth: { principals: ['api_key', 'buyer', 'agent'], scopes: ['merchant:write'] },
  http: { method: 'POST', path: '/v1/ticketing/quotes', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  audited: false, // the purchase spine: its record is the quote, reservation or order itself
  idempotency: 'optional',
  // A read and one insert (domain/purchase/quotes.ts): no transaction needed.
  transactional: false,
  async handler(input, ctx) {
    return quoteView(withCodeText(await quoteRequest(ctx, input), input.discountCode));
  },
});
