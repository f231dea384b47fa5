/** The wire schemas of a shop's tax settings (set_tax_settings, get_tax_settings). */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';

const RateId = z
  .string()
  .max(32)
  .regex(/^[a-z0-9_-]{1,32}$/)
  .describe('A rate id you choose: a-z, 0-9, _ or -, 1-32.');

export const TaxRateIn = z.strictObject({
  id: RateId,
  name: z.string().trim().min(1).max(60).describe('Printed on receipts and invoices, e.g. "VAT 19 %".'),
  percent: z.number().min(0).max(100).multipleOf(0.01).describe('0-100, at most two decimals.'),
});

export const SellerIn = z.strictObject({
  legalName: z.string().trim().min(1).max(200).describe('The seller’s legal name.'),
  address: z.string().trim().min(1).max(500).describe('The seller’s postal address (lines separated by newlines).'),
  vatId: z.string().trim().min(1).max(40).optional().describe('The seller’s VAT id, e.g. DE123456789.'),
});

export const InvoicePrefixIn = z
  .string()
  .max(20)
  .regex(/^[A-Za-z0-9-]{1,20}$/)
  .describe('Invoice numbers are `<prefix>-<n>` (default INV): letters, digits, -, 1-20.');

export const TaxSettingsOut = z.object({
  merchantId: z.string(),
  settings: z
    .object({
      pricesIncludeTax: z.boolean(),
      rates: z.array(z.object({ id: z.string().max(32), name: z.string().max(60), percent: z.number() })).max(10),
      defaultRateId: z.string().max(32),
      invoicing: z.boolean(),
      invoicePrefix: z.string().max(20),
      seller: z
        .object({ legalName: z.string().max(200), address: z.string().max(500), vatId: z.string().max(40).optional() })
        .optional(),
    })
    .nullable()
    .describe('null: prices carry no tax and no invoices are made.'),
  tierRates: z
    .array(z.object({ tierId: IdRef, rateId: z.string().max(32) }))
    .max(10_000)
    .describe('The tiers that name a rate of their own (the others use defaultRateId).'),
});
