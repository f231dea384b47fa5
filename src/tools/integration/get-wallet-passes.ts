/** get_wallet_passes: which wallet passes a shop offers, with their public settings. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { getWalletSettings } from '../../domain/merchants/wallet-pass-settings.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { WalletSettingsOut } from './wallet-pass-schemas.ts';

export const getWalletPasses = defineTool({
  name: 'get_wallet_passes',
  title: 'A shop’s wallet passes',
  area: 'integration',
  description:
    'Whether a shop offers Apple Wallet passes and Google Wallet save links, with their public settings (ids, the ' +
    'certificate’s subject and expiry); keys are never shown. null: off, the default. Needs merchant:read.',
  input: z.strictObject({ id: IdRef.describe('The shop id (shop_…).') }),
  output: WalletSettingsOut,
  errors: ['not_found'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/integration/shops/{id}/wallet-passes' },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler({ id }, ctx) {
    return getWalletSettings(ctx, id);
  },
});
