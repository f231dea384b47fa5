/** set_tax_settings: a shop's tax rates, whether prices include them, invoicing and the seller's invoice details. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { setTaxSettings as set } from '../../domain/purchase/tax-settings.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { InvoicePrefixIn, SellerIn, TaxRateIn, TaxSettingsOut } from './tax-settings-schemas.ts';

export const setTaxSettings = defineTool({
  name: 'set_tax_settings',
  title: 'Set a shop’s tax and invoicing',
  area: 'integration',
  description:
    'Replaces shop `merchantId`’s tax settings: `rates` (1-10), `defaultRateId`, `pricesIncludeTax` (default true: ' +
    'tax is extracted; false: added to totals), `invoicing` (numbered invoices and credit notes; needs `seller`), ' +
    '`invoicePrefix`. `tierRates` gives tiers their own rate. `enabled: false` removes tax. Needs merchant:write.',
  input: z.strictObject({
    merchantId: IdRef.describe('The shop (shop_…).'),
    enabled: z.boolean().optional().describe('false: no tax and no invoices (the other fields are ignored).'),
    pricesIncludeTax: z.boolean().optional().describe('true (default): prices include tax; false: tax is added.'),
    rates: z.array(TaxRateIn).max(10).optional().describe('The shop’s tax rates (1-10 when enabled).'),
    defaultRateId: z.string().max(32).optional().describe('The rate of tiers that name none (default: the first).'),
    invoicing: z.boolean().optional().describe('Whether orders get numbered invoices (default false).'),
    invoicePrefix: InvoicePrefixIn.optional(),
    seller: SellerIn.optional().describe('Printed on receipts and invoices; required for invoicing.'),
    tierRates: z
      .array(
        z.strictObject({
          tierId: IdRef.describe('A tier of this shop.'),
          rateId: z.string().max(32).nullable().describe('The id of one of `rates`; null: the default rate.'),
        }),
      )
      .max(200)
      .optional()
      .describe('Tiers of this shop and their rate (null: back to the default).'),
  }),
  example: {
    merchantId: 'shop_01jf8k2m9q7r5t',
    pricesIncludeTax: true,
    rates: [{ id: 'standard', name: 'VAT 19 %', percent: 19 }],
    invoicing: true,
    seller: { legalName: 'Konzert GmbH', address: 'Hauptstr. 1, 10115 Berlin', vatId: 'DE123456789' },
  },
  output: TaxSettingsOut,
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:write'], roles: ['owner'] },
  http: { method: 'PUT', path: '/v1/integration/shops/{merchantId}/tax-settings' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  idempotency: 'optional',
  async handler(input, ctx) {
    return set(ctx, input);
  },
});
