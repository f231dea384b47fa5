/**
 * The role-by-operation matrix's rows (issue #12, spec §5.3, §5.4): for each merchant-side operation, the principals
 * its declared auth admits, whether another organization's object answers 404, and an input that succeeds. The
 * principals and the fixtures the inputs use are in role-matrix-fixtures.ts.
 */
import { randomUUID } from 'node:crypto';
import { restClient } from '../support/rest.ts';
import { must } from '../support/buyers.ts';
import {
  admin,
  ADMINS,
  attestedPermission,
  aWebhook,
  CATALOG_WRITERS,
  CONSOLE,
  freshDiscountCode,
  freshEntry,
  freshEvent,
  freshMember,
  freshShop,
  freshTier,
  freshWebhook,
  future,
  OWNER,
  READERS,
  settledDelivery,
  SHOPPERS,
  WEBHOOK_WRITERS,
  world,
  type Op,
} from './role-matrix-fixtures.ts';

export { PRINCIPALS, useWorld, type Org, type P } from './role-matrix-fixtures.ts';

export const OPS: Op[] = [
  { tool: 'get_shop', allowed: SHOPPERS, scoped: true, input: async (o) => ({ id: o.m.shopId }) },
  { tool: 'list_events', allowed: SHOPPERS, scoped: true, input: async (o) => ({ id: o.m.shopId }) },
  { tool: 'get_event', allowed: SHOPPERS, scoped: true, input: async (o) => ({ id: o.m.eventId }) },
  { tool: 'list_pools', allowed: READERS, scoped: true, input: async (o) => ({ merchantId: o.m.shopId }) },
  { tool: 'create_shop', allowed: ADMINS, input: async () => ({ name: 'New', currency: 'EUR' }) },
  {
    tool: 'update_shop_settings',
    allowed: CATALOG_WRITERS,
    scoped: true,
    input: async (o) => ({ id: o.m.shopId, description: 'Hello' }),
  },
  { tool: 'delete_shop', allowed: ADMINS, scoped: true, input: async (o) => ({ id: await freshShop(o) }) },
  {
    tool: 'link_payment_provider',
    allowed: ADMINS,
    scoped: true,
    input: async (o) => ({ id: o.m.shopId, provider: 'sandbox' }),
  },
  {
    tool: 'configure_payment_provider',
    allowed: ADMINS,
    scoped: true,
    input: async (o) => ({
      id: o.m.shopId,
      provider: 'stripe',
      publishableKey: 'pk_test_51AbCdEfGhIjKlMnOpQrSt',
      secretKey: 'sk_test_51ZyXwVuTsRqPoNmLkJi9x8Y',
      webhookSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2La',
    }),
  },
  { tool: 'list_payment_providers', allowed: READERS, scoped: true, input: async (o) => ({ id: o.m.shopId }) },
  {
    tool: 'set_embed_origins',
    allowed: CONSOLE,
    scoped: true,
    input: async (o) => ({ id: o.m.shopId, embedOrigin: 'https://partner.example' }),
  },
  {
    tool: 'create_event',
    allowed: CATALOG_WRITERS,
    scoped: true,
    input: async (o) => ({ merchantId: o.m.shopId, title: 'Gig', startsAt: future() }),
  },
  {
    tool: 'update_event',
    allowed: CATALOG_WRITERS,
    scoped: true,
    input: async (o) => ({ id: o.m.eventId, venue: 'Hall' }),
  },
  { tool: 'cancel_event', allowed: CATALOG_WRITERS, scoped: true, input: async (o) => ({ id: await freshEvent(o) }) },
  {
    tool: 'create_pool',
    allowed: CATALOG_WRITERS,
    scoped: true,
    input: async (o) => ({ merchantId: o.m.shopId, capacity: 5 }),
  },
  {
    tool: 'update_pool',
    allowed: CATALOG_WRITERS,
    scoped: true,
    input: async (o) => ({ id: o.m.poolId, capacity: 60 }),
  },
  {
    tool: 'create_tier',
    allowed: CATALOG_WRITERS,
    scoped: true,
    input: async (o) => ({ eventId: o.m.eventId, poolId: o.m.poolId, name: 'VIP', priceMinor: 9000 }),
  },
  { tool: 'update_tier', allowed: CATALOG_WRITERS, scoped: true, input: async (o) => ({ id: o.m.tierId, name: 'GA' }) },
  { tool: 'retire_tier', allowed: CATALOG_WRITERS, scoped: true, input: async (o) => ({ id: await freshTier(o) }) },
  {
    tool: 'create_webhook',
    allowed: WEBHOOK_WRITERS,
    scoped: true,
    input: async (o) => ({ merchantId: o.m.shopId, url: 'https://hooks.example/t', events: ['order.completed'] }),
  },
  { tool: 'list_webhooks', allowed: READERS, scoped: true, input: async (o) => ({ merchantId: o.m.shopId }) },
  { tool: 'list_webhook_deliveries', allowed: READERS, scoped: true, input: async (o) => ({ id: await aWebhook(o) }) },
  { tool: 'get_webhook_delivery', allowed: READERS, scoped: true, input: async (o) => settledDelivery(o) },
  {
    tool: 'send_test_webhook_event',
    allowed: WEBHOOK_WRITERS,
    scoped: true,
    input: async (o) => ({ id: await aWebhook(o) }),
  },
  {
    tool: 'redeliver_webhook_delivery',
    allowed: WEBHOOK_WRITERS,
    scoped: true,
    input: async (o) => settledDelivery(o),
  },
  {
    tool: 'set_acp_webhook',
    allowed: WEBHOOK_WRITERS,
    scoped: true,
    input: async (o) => ({
      merchantId: o.m.shopId,
      url: 'https://platform.example/acp',
      secret: 'acp-shared-secret-0123456789',
    }),
  },
  { tool: 'get_acp_webhook', allowed: READERS, scoped: true, input: async (o) => ({ merchantId: o.m.shopId }) },
  {
    tool: 'delete_acp_webhook',
    allowed: WEBHOOK_WRITERS,
    scoped: true,
    input: async (o) => {
      must(
        await admin(o).put(`/v1/integration/shops/${o.m.shopId}/acp-webhook`, {
          url: 'https://platform.example/acp',
          secret: 'acp-shared-secret-0123456789',
        }),
        200,
      );
      return { merchantId: o.m.shopId };
    },
  },
  {
    tool: 'delete_webhook',
    allowed: WEBHOOK_WRITERS,
    scoped: true,
    input: async (o) => ({ id: await freshWebhook(o) }),
  },
  { tool: 'list_shops', allowed: READERS, input: async () => ({}) },
  {
    tool: 'mint_buyer_session',
    allowed: ['key:write', 'key:integrator'],
    scoped: true,
    input: async (o) => ({ merchantId: o.m.shopId, email: 'someone@example.test' }),
  },
  { tool: 'create_api_key', allowed: CONSOLE, input: async () => ({ name: 'k', scopes: ['merchant:read'] }) },
  { tool: 'list_api_keys', allowed: CONSOLE, input: async () => ({}) },
  {
    tool: 'revoke_api_key',
    allowed: CONSOLE,
    scoped: true,
    input: async (o, who) => {
      const minter = who === 'integrator' ? o.tokens.integrator : o.tokens.owner;
      return {
        id: must(
          await restClient(world().h.url, minter).post('/v1/console/api-keys', {
            name: 'spare',
            scopes: ['merchant:read'],
          }),
          201,
        ).apiKey.id,
      };
    },
  },
  { tool: 'get_attested_consent', allowed: CONSOLE, input: async () => ({}) },
  {
    tool: 'withdraw_attested_permission',
    allowed: OWNER,
    scoped: true,
    input: async (o) => ({ id: await attestedPermission(o), reason: 'The buyer asked us to.' }),
  },
  {
    tool: 'switch_console_organization',
    allowed: CONSOLE,
    input: async (o) => ({ organizationId: o.m.organizationId }),
  },
  { tool: 'get_console_session', allowed: CONSOLE, input: async () => ({}) },
  { tool: 'end_console_session', allowed: CONSOLE, input: async () => ({}) },
  { tool: 'list_audit_log', allowed: READERS, input: async () => ({}) },
  { tool: 'list_team', allowed: OWNER, input: async () => ({}) },
  {
    tool: 'invite_team_member',
    allowed: OWNER,
    input: async () => ({ email: `inv-${randomUUID().slice(0, 8)}@example.test`, role: 'integrator' }),
  },
  {
    tool: 'change_team_member_role',
    allowed: OWNER,
    scoped: true,
    input: async (o) => ({ userId: await freshMember(o), role: 'owner' }),
  },
  { tool: 'remove_team_member', allowed: OWNER, scoped: true, input: async (o) => ({ userId: await freshMember(o) }) },
  {
    tool: 'revoke_team_invitation',
    allowed: OWNER,
    scoped: true,
    input: async (o) => ({
      id: must(
        await restClient(world().h.url, o.tokens.owner).post('/v1/console/team/invitations', {
          email: `inv-${randomUUID().slice(0, 8)}@example.test`,
          role: 'integrator',
        }),
        201,
      ).id,
    }),
  },
  { tool: 'get_tax_settings', allowed: READERS, scoped: true, input: async (o) => ({ merchantId: o.m.shopId }) },
  {
    tool: 'set_tax_settings',
    allowed: CATALOG_WRITERS,
    scoped: true,
    input: async (o) => ({ merchantId: o.m.shopId, enabled: false }),
  },
  { tool: 'get_wallet_passes', allowed: READERS, scoped: true, input: async (o) => ({ id: o.m.shopId }) },
  { tool: 'configure_wallet_passes', allowed: ADMINS, scoped: true, input: async (o) => ({ id: o.m.shopId }) },
  { tool: 'list_waiting_list', allowed: READERS, scoped: true, input: async (o) => ({ tierId: o.m.tierId }) },
  {
    tool: 'set_waiting_list',
    allowed: CATALOG_WRITERS,
    scoped: true,
    input: async (o) => ({ tierId: o.m.tierId, enabled: true }),
  },
  // An owner's act, as set_waiting_list: an integrator and the key it made are refused (403 forbidden).
  {
    tool: 'remove_waiting_list_entry',
    allowed: CATALOG_WRITERS,
    scoped: true,
    input: async (o) => ({ id: await freshEntry(o) }),
  },
  {
    tool: 'create_discount_code',
    allowed: CATALOG_WRITERS,
    scoped: true,
    input: async (o) => ({
      merchantId: o.m.shopId,
      code: `N${randomUUID().slice(0, 8)}`,
      kind: 'fixed',
      amountOffMinor: 100,
    }),
  },
  { tool: 'list_discount_codes', allowed: READERS, scoped: true, input: async (o) => ({ merchantId: o.m.shopId }) },
  {
    tool: 'get_discount_code',
    allowed: READERS,
    scoped: true,
    input: async (o) => ({ id: await freshDiscountCode(o) }),
  },
  {
    tool: 'update_discount_code',
    allowed: CATALOG_WRITERS,
    scoped: true,
    input: async (o) => ({ id: await freshDiscountCode(o), maxUses: 50 }),
  },
  {
    tool: 'delete_discount_code',
    allowed: CATALOG_WRITERS,
    scoped: true,
    input: async (o) => ({ id: await freshDiscountCode(o) }),
  },
];
