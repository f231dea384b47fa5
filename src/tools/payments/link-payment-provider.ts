/** link_payment_provider: sets which payment provider a shop charges through (merchant:admin). */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { requireShop } from '../../domain/catalog/access.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { PROVIDER_NAMES } from '../../payments/provider.ts';
import { ShopOut } from '../catalog/schemas.ts';
import { shopOut } from '../../domain/catalog/serialize.ts';

export const linkPaymentProvider = defineTool({
  name: 'link_payment_provider',
  title: 'Link a payment provider',
  area: 'integration',
  description:
    'Links a shop to a payment provider. `sandbox` is the provider to test with. `stripe` can be named but is not ' +
    'switched on in the sandbox: it is refused with `provider_not_enabled` and the shop keeps its current provider. ' +
    'Requires merchant:admin.',
  input: z.strictObject({
    id: IdRef.describe('The shop (shop_…).'),
    provider: z.enum(PROVIDER_NAMES).describe('The payment provider: sandbox or stripe.'),
  }),
  output: ShopOut,
  errors: ['not_found', 'provider_not_enabled', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:admin'], roles: ['owner'] },
  http: { method: 'PUT', path: '/v1/integration/shops/{id}/payment-provider' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  idempotency: 'optional',
  async handler({ id, provider }, { em, principal, services }) {
    const shop = await requireShop(em, principal, id);
    services.payments.provider(provider);
    shop.paymentProvider = provider;
    await em.flush();
    return shopOut(shop);
  },
});
