/** set_embed_origins: the console operation of spec §4.3, for the owner and the integrator. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { setEmbedOrigins as setOrigins } from '../../domain/catalog/shop-settings.ts';
import { shopOut } from '../../domain/catalog/serialize.ts';
import { ShopOut } from '../catalog/schemas.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { EmbedOriginIn } from '../integration/embed-origin-input.ts';

export const setEmbedOrigins = defineTool({
  name: 'set_embed_origins',
  title: 'Set a shop’s embed origins',
  area: 'console',
  description:
    'Sets which partner origins may embed the shop’s consent view and call the buyer API from the browser: at ' +
    'most three bare origins (https, or http for localhost; no IP addresses), separated by spaces or commas, ' +
    'normalised and deduplicated. A bad entry is invalid_embed_origin (details.rule). Returns the shop. Console ' +
    'owner or integrator.',
  input: z.strictObject({ id: IdRef.describe('The shop id (shop_…).'), embedOrigin: EmbedOriginIn }),
  output: ShopOut,
  errors: ['not_found', 'invalid_embed_origin'],
  auth: { principals: ['console_user'], roles: ['owner', 'integrator'] },
  http: { method: 'PUT', path: '/v1/console/merchants/{id}/embed-origins' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  idempotency: 'optional',
  async handler({ id, embedOrigin }, ctx) {
    return shopOut(await setOrigins(ctx, id, embedOrigin));
  },
});
