/** list_shops: the calling organization's shops (the console's shops page). */
import { z } from 'zod';
import { listShops as listOrganizationShops } from '../../domain/catalog/catalog.ts';
import { shopOut } from '../../domain/catalog/serialize.ts';
import { ShopOut } from './schemas.ts';
import { defineTool } from '../../orchestrator/tool.ts';

export const listShops = defineTool({
  name: 'list_shops',
  title: 'List your shops',
  area: 'catalog',
  description:
    'Lists the shops of the calling organization in id order, with their public settings (name, description, ' +
    'discoverable, embed origins). Deleted shops are not listed. Requires merchant:read. Next: `get_shop`, `list_events`.',
  input: z.strictObject({}),
  output: z.object({ shops: z.array(ShopOut) }),
  errors: ['insufficient_scope'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/catalog/shops' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler(_input, ctx) {
    return { shops: (await listOrganizationShops(ctx)).map(shopOut) };
  },
});
