/** get_tax_settings: a shop's tax rates, invoicing and seller details as set. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { getTaxSettings as get } from '../../domain/purchase/tax-settings.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { TaxSettingsOut } from './tax-settings-schemas.ts';

export const getTaxSettings = defineTool({
  name: 'get_tax_settings',
  title: 'Get a shop’s tax and invoicing',
  area: 'integration',
  description:
    'Returns shop `merchantId`’s tax settings (null when it has none: no tax, no invoices) and the tiers that name ' +
    'their own rate. Needs merchant:read.',
  input: z.strictObject({ merchantId: IdRef.describe('The shop (shop_…).') }),
  output: TaxSettingsOut,
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/integration/shops/{merchantId}/tax-settings' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler({ merchantId }, ctx) {
    return get(ctx, merchantId);
  },
});
