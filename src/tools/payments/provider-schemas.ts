/** Wire schemas of a shop's payment-provider settings. */
import { z } from 'zod';

export const ProviderSettingsOut = z.object({
  provider: z.string(),
  status: z.literal('configured_not_enabled'),
  statusText: z.string().describe('"configured, not switched on in the sandbox".'),
  linked: z.boolean().describe('Whether payments go through this provider (never, while it is not switched on).'),
  mode: z.string().describe('test or live, from the keys.'),
  publishableKey: z.string(),
  secretKey: z.string().describe('Only the last four characters, e.g. "…4xYz".'),
  webhookSecret: z.literal('set'),
  accountId: z.string().nullable(),
  configuredAt: z.string(),
  updatedAt: z.string(),
});

export const ProviderListOut = z.object({
  linked: z.string().describe('The provider payments go through.'),
  providers: z.array(
    ProviderSettingsOut.partial().extend({
      provider: z.string(),
      status: z.enum(['active', 'not_configured', 'configured_not_enabled']),
      statusText: z.string(),
      linked: z.boolean(),
    }),
  ),
});
