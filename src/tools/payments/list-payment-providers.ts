/** list_payment_providers: a shop's payment providers and their state. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { listProviders } from '../../domain/merchants/payment-provider-settings.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { ProviderListOut } from './provider-schemas.ts';

export const listPaymentProviders = defineTool({
  name: 'list_payment_providers',
  title: 'A shop’s payment providers',
  area: 'payments',
  description:
    'Lists a shop’s payment providers: the sandbox ("in use", the one to test with) and the second provider, either ' +
    '"not configured" or "configured, not switched on in the sandbox" with its public settings. Requires merchant:read.',
  input: z.strictObject({ id: IdRef.describe('The shop id (shop_…).') }),
  output: ProviderListOut,
  errors: ['not_found'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/integration/shops/{id}/payment-providers' },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler({ id }, ctx) {
    return listProviders(ctx, id);
  },
});
