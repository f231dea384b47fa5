/** update_shop_settings: a shop's public settings (spec §5.3: merchant:write). */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { updateShopSettings as updateSettings } from '../../domain/catalog/shop-settings.ts';
import { shopOut } from '../../domain/catalog/serialize.ts';
import { ShopOut } from '../catalog/schemas.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { EmbedOriginIn } from './embed-origin-input.ts';

export const updateShopSettings = defineTool({
  name: 'update_shop_settings',
  title: 'Change a shop’s public settings',
  area: 'integration',
  description:
    'Changes a shop’s public settings; fields left out keep their value. `name`; `description` (shown in the public ' +
    'discovery window; null clears it); `discoverable` (whether the shop appears in the public window and product ' +
    'feed); `embedOrigin` (up to three bare https origins separated by spaces or commas, which may embed the ' +
    'consent view; null clears it). Requires merchant:write (console: the owner).',
  input: z.strictObject({
    id: IdRef.describe('The shop id (shop_…).'),
    name: z.string().trim().min(1).max(200).optional().describe('The new public name.'),
    description: z.string().trim().max(2000).nullable().optional().describe('The public description; null clears it.'),
    discoverable: z.boolean().optional().describe('Whether the shop appears in the public discovery window.'),
    embedOrigin: EmbedOriginIn.optional(),
  }),
  output: ShopOut,
  errors: ['not_found', 'invalid_embed_origin'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:write'], roles: ['owner'] },
  http: { method: 'PATCH', path: '/v1/integration/shops/{id}' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  idempotency: 'optional',
  async handler({ id, ...settings }, ctx) {
    return shopOut(await updateSettings(ctx, id, settings));
  },
});
