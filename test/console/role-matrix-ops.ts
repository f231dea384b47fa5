/**
 * The role-by-operation matrix's rows (issue #12, spec §5.3, §5.4): for each merchant-side operation, the principals
 * its declared auth admits, whether another organization's object answers 404, and an input that succeeds.
 */
import { randomUUID } from 'node:crypto';
import { restClient } from '../support/rest.ts';
import { reserveOne } from '../support/spine.ts';
import {
  createAgent,
  limits,
  must,
  newEmail,
  saveCard,
  signIn,
  type MerchantShop,
  type World,
} from '../support/buyers.ts';

let w: World;
/** Hands the test file's world to the rows' inputs (called once it has started). */
export function useWorld(world: World): void {
  w = world;
}

export const PRINCIPALS = [
  'owner',
  'integrator',
  'key:read',
  'key:write',
  'key:admin',
  'key:attest',
  'key:integrator',
  'buyer',
  'agent',
] as const;
export type P = (typeof PRINCIPALS)[number];

export interface Org {
  m: MerchantShop;
  tokens: Record<P, string>;
  integratorId: string;
}

export interface Op {
  tool: string;
  allowed: readonly P[];
  /** The input for one call as `who` (fresh objects for destructive operations). */
  input(o: Org, who: P): Promise<Record<string, unknown>>;
  /** Whether another organization's owner gets 404 for this input (object-scoped operations). */
  scoped?: boolean;
}

const admin = (o: Org) => restClient(w.h.url, o.m.apiKey);
const future = () => new Date(w.h.clock.now().getTime() + 20 * 86_400_000).toISOString();
const freshShop = async (o: Org) =>
  must(await admin(o).post('/v1/integration/shops', { name: 'Spare', currency: 'EUR' }), 201).id as string;
const freshEvent = async (o: Org) =>
  must(
    await admin(o).post('/v1/integration/events', { merchantId: o.m.shopId, title: 'Spare', startsAt: future() }),
    201,
  ).id as string;
const freshTier = async (o: Org) =>
  must(
    await admin(o).post('/v1/integration/tiers', {
      eventId: o.m.eventId,
      poolId: o.m.poolId,
      name: 'Spare',
      priceMinor: 100,
    }),
    201,
  ).id as string;
async function freshMember(o: Org): Promise<string> {
  const id = `usr_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
  await w.h.db.execute('insert into users (id, email, name, is_staff, created_at) values (?, ?, null, false, now())', [
    id,
    `${id}@example.test`,
  ]);
  await w.h.db.execute(
    `insert into memberships (user_id, organization_id, role, invited_by, created_at) values (?, ?, 'integrator', null, now())`,
    [id, o.m.organizationId],
  );
  return id;
}

const webhooks = new Map<Org, string>();
/** One webhook of the organization's shop, made once (a shop has at most 16). */
async function aWebhook(o: Org): Promise<string> {
  if (!webhooks.has(o))
    webhooks.set(
      o,
      must(
        await admin(o).post('/v1/integration/webhooks', {
          merchantId: o.m.shopId,
          url: 'https://hooks.example/m',
          events: ['order.completed'],
        }),
        201,
      ).id,
    );
  return webhooks.get(o)!;
}
const freshWebhook = async (o: Org) =>
  must(
    await admin(o).post('/v1/integration/webhooks', {
      merchantId: o.m.shopId,
      url: 'https://hooks.example/d',
      events: ['order.completed'],
    }),
    201,
  ).id as string;
/** A delivery that is no longer pending (a test event marked failed), so it may be redelivered. */
async function settledDelivery(o: Org): Promise<{ id: string; deliveryId: string }> {
  const id = await aWebhook(o);
  const deliveryId = must(await admin(o).post(`/v1/integration/webhooks/${id}/test`, {}), 201).id as string;
  await w.h.db.execute(`update webhook_deliveries set status = 'failed', next_attempt_at = null where id = ?`, [
    deliveryId,
  ]);
  return { id, deliveryId };
}
const attested = new Map<Org, string>();
/**
 * A permission created under attested consent (an attest key mints the buyer's session), made once per organization.
 */
async function attestedPermission(o: Org): Promise<string> {
  if (!attested.has(o)) {
    const email = newEmail();
    const full = await signIn(w, email, o.m.shopId);
    const instrument = await saveCard(w, full, email);
    const { agent } = await createAgent(w, full, email);
    const session = must(
      await restClient(w.h.url, o.tokens['key:attest']).post('/v1/integration/buyer-sessions', {
        merchantId: o.m.shopId,
        email,
        merchantAttested: true,
      }),
      201,
    );
    const p = must(
      await restClient(w.h.url, session.token).post('/v1/buyer/permissions', {
        agentId: agent.id,
        instrumentId: instrument.id,
        ...limits(w, { perPurchaseCapMinor: 5000, allowanceMinor: 10_000 }),
      }),
      201,
    );
    attested.set(o, p.id);
  }
  return attested.get(o)!;
}

const freshDiscountCode = async (o: Org) =>
  must(
    await admin(o).post('/v1/integration/discount-codes', {
      merchantId: o.m.shopId,
      code: `M${randomUUID().slice(0, 8)}`,
      kind: 'percent',
      percentOff: 10,
    }),
    201,
  ).id as string;
const soldOut = new Map<Org, string>();
/** A tier whose one place is held, so people may join its waiting list; made once per organization. */
async function soldOutTier(o: Org): Promise<string> {
  if (!soldOut.has(o)) {
    const pool = must(await admin(o).post('/v1/integration/pools', { merchantId: o.m.shopId, capacity: 1 }), 201);
    const tier = { eventId: o.m.eventId, poolId: pool.id, name: 'Scarce', priceMinor: 100 };
    const tierId = must(await admin(o).post('/v1/integration/tiers', tier), 201).id as string;
    await reserveOne(admin(o), tierId);
    soldOut.set(o, tierId);
  }
  return soldOut.get(o)!;
}
/** A new entry on the sold-out tier's waiting list. */
const freshEntry = async (o: Org) =>
  must(
    await admin(o).post('/v1/ticketing/waiting-list', { tierId: await soldOutTier(o), quantity: 1, email: newEmail() }),
    200,
  ).id as string;

const READERS: readonly P[] = ['owner', 'integrator', 'key:read', 'key:integrator'];
const SHOPPERS: readonly P[] = ['owner', 'integrator', 'key:read', 'key:integrator', 'buyer', 'agent'];
/** What an integrator and its key may write besides reading: webhooks. */
const WEBHOOK_WRITERS: readonly P[] = ['owner', 'integrator', 'key:write', 'key:integrator'];
const CATALOG_WRITERS: readonly P[] = ['owner', 'key:write'];
const ADMINS: readonly P[] = ['owner', 'key:admin'];
const CONSOLE: readonly P[] = ['owner', 'integrator'];
const OWNER: readonly P[] = ['owner'];

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
          await restClient(w.h.url, minter).post('/v1/console/api-keys', { name: 'spare', scopes: ['merchant:read'] }),
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
        await restClient(w.h.url, o.tokens.owner).post('/v1/console/team/invitations', {
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
