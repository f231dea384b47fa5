/** get_shop: one shop's public settings. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { requireShop } from '../../domain/catalog/access.ts';
import { shopOut } from '../../domain/catalog/serialize.ts';
import { ShopOut } from './schemas.ts';
import { defineTool } from '../../orchestrator/tool.ts';

export const getShop = defineTool({
  name: 'get_shop',
  title: 'Get a shop',
  area: 'catalog',
  description:
    'Returns a shop: its name, currency, hold duration, per-ticket fee and whether it is discoverable. Next: `list_events`.',
  input: z.strictObject({ id: IdRef.describe('The shop id (shop_…).') }),
  output: ShopOut,
  errors: ['not_found'],
  auth: { principals: ['api_key', 'console_user', 'buyer', 'agent'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/catalog/shops/{id}' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler({ id }, { em, principal }) {
    return shopOut(await requireShop(em, principal, id));
  },
});
