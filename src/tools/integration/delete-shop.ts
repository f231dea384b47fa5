/** delete_shop: removes a shop from every read and from discovery, keeping its records (merchant:admin). */
import { z } from 'zod';
import { deleteShop as deleteOrganizationShop } from '../../domain/catalog/shop-settings.ts';
import { IdRef, iso } from '../../kernel/wire.ts';
import { defineTool } from '../../orchestrator/tool.ts';

export const deleteShop = defineTool({
  name: 'delete_shop',
  title: 'Delete a shop',
  area: 'integration',
  description:
    'Deletes a shop: it disappears from every read, from purchases and from public discovery (its id then answers ' +
    'not_found); its records (orders, payments, events) are kept. Refused with shop_has_purchases_in_flight, with ' +
    'the counts, while a reservation is held or being confirmed or a payment is pending. Requires merchant:admin ' +
    '(console: the owner).',
  input: z.strictObject({ id: IdRef.describe('The shop id (shop_…).') }),
  output: z.object({ id: z.string(), deleted: z.literal(true), deletedAt: z.string() }),
  errors: ['not_found', 'shop_has_purchases_in_flight'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:admin'], roles: ['owner'] },
  http: { method: 'DELETE', path: '/v1/integration/shops/{id}' },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async handler({ id }, ctx) {
    const shop = await deleteOrganizationShop(ctx, id);
    return { id: shop.id, deleted: true as const, deletedAt: iso(shop.deletedAt!) };
  },
});
