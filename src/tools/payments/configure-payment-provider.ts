/** configure_payment_provider: store the settings of the second payment provider (not switched on in the sandbox). */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { secret } from '../../kernel/secret-fields.ts';
import { configureStripe } from '../../domain/merchants/payment-provider-settings.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { ProviderSettingsOut } from './provider-schemas.ts';

export const configurePaymentProvider = defineTool({
  name: 'configure_payment_provider',
  title: 'Configure the second payment provider',
  area: 'payments',
  description:
    'Stores a shop’s Stripe settings: `publishableKey`, `secretKey` (same mode), `webhookSecret` and optional ' +
    '`accountId`, validated (invalid_provider_settings names the field); the secrets are encrypted and never ' +
    'shown again. Configured, not switched on in the sandbox: payments keep using the sandbox provider. Requires ' +
    'merchant:admin.',
  input: z.strictObject({
    id: IdRef.describe('The shop id (shop_…).'),
    provider: z.literal('stripe').describe('The provider to configure (stripe; the sandbox needs no settings).'),
    publishableKey: z.string().min(1).max(255).describe('The Stripe publishable key: pk_test_… or pk_live_….'),
    secretKey: secret(
      z
        .string()
        .min(1)
        .max(255)
        .describe(
          'The Stripe secret or restricted key (sk_test_…, rk_test_… or live), the publishable key’s mode; never shown again.',
        ),
    ),
    webhookSecret: secret(
      z.string().min(1).max(255).describe('The Stripe webhook signing secret (whsec_…); never shown again.'),
    ),
    accountId: z.string().min(1).max(255).optional().describe('The Stripe account id (acct_…), if any.'),
  }),
  output: ProviderSettingsOut,
  errors: ['not_found', 'invalid_provider_settings'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:admin'], roles: ['owner'] },
  http: { method: 'PUT', path: '/v1/integration/shops/{id}/payment-providers/{provider}' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler({ id, provider: _stripe, ...settings }, ctx) {
    return configureStripe(ctx, id, settings);
  },
});
