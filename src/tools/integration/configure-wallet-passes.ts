/** configure_wallet_passes: switch a shop's Apple Wallet passes and Google Wallet save links on or off. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { configureWalletSettings } from '../../domain/merchants/wallet-pass-settings.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { AppleWalletIn, GoogleWalletIn, WalletSettingsOut } from './wallet-pass-schemas.ts';

export const configureWalletPasses = defineTool({
  name: 'configure_wallet_passes',
  title: 'Configure wallet passes',
  area: 'integration',
  description:
    'Switches a shop’s wallet passes on with the merchant’s own signing material, or off with null: `apple` (pass ' +
    'type id, team id, certificate, key, WWDR certificate) and `google` (issuer, class, service account and its RSA ' +
    'key). An absent one stays as it is. Checked (invalid_wallet_settings names the field); keys are encrypted and ' +
    'never shown again. Off by default. Needs merchant:admin.',
  input: z.strictObject({
    id: IdRef.describe('The shop id (shop_…).'),
    apple: AppleWalletIn.nullable()
      .optional()
      .describe('Apple Wallet signing material; null switches Apple Wallet passes off; absent: unchanged.'),
    google: GoogleWalletIn.nullable()
      .optional()
      .describe('Google Wallet signing material; null switches Google Wallet save links off; absent: unchanged.'),
  }),
  output: WalletSettingsOut,
  errors: ['not_found', 'invalid_wallet_settings'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:admin'], roles: ['owner'] },
  http: { method: 'PUT', path: '/v1/integration/shops/{id}/wallet-passes' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler({ id, ...settings }, ctx) {
    return configureWalletSettings(ctx, id, settings);
  },
});
