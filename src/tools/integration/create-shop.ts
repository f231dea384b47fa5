/** create_shop: a new shop in the caller's organization (merchant:admin). */
import { z } from 'zod';
import { createShop as createOrganizationShop } from '../../domain/catalog/catalog.ts';
import { shopOut } from '../../domain/catalog/serialize.ts';
import { Currency, Minor } from '../../kernel/wire.ts';
import { ShopOut } from '../catalog/schemas.ts';
import { defineTool } from '../../orchestrator/tool.ts';

export const createShop = defineTool({
  name: 'create_shop',
  title: 'Create a shop',
  area: 'integration',
  description:
    'Creates a shop (merchant) in the calling organization. Prices in the shop are in its `currency`. ' +
    '`holdMinutes` is how long a reservation holds places before it expires (default 10). Requires merchant:admin.',
  input: z.strictObject({
    name: z.string().trim().min(1).max(200).describe('The shop’s public name.'),
    description: z
      .string()
      .trim()
      .max(2000)
      .optional()
      .describe('A public description, shown in the discovery window.'),
    currency: Currency,
    holdMinutes: z
      .number()
      .int()
      .min(1)
      .max(120)
      .optional()
      .describe('How long a reservation holds its places, in minutes.'),
    feePerTicketMinor: Minor.optional().describe('Service fee added per ticket, in minor units (default 0).'),
    discoverable: z
      .boolean()
      .optional()
      .describe('Whether the shop appears in the public discovery window (default false).'),
  }),
  output: ShopOut,
  errors: ['insufficient_scope'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:admin'], roles: ['owner'] },
  http: { method: 'POST', path: '/v1/integration/shops', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  idempotency: 'optional',
  async handler(input, ctx) {
    return shopOut(await createOrganizationShop(ctx, input));
  },
});
