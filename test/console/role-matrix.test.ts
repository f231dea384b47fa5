/**
 * The role-by-operation matrix over REST (issue #12, spec §5.3, §5.4): each merchant-side operation is called as
 * the console owner, the console integrator, an API key holding each single scope, a key the integrator made with
 * merchant:read and merchant:write (it acts as an integrator: issue #32), a buyer and an agent. Every
 * allowed call succeeds; every refused one gets its code (`insufficient_scope` for a key without the scope,
 * `forbidden` for a role or principal kind the operation does not admit). Another organization's objects answer 404.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { restCaller, type Caller } from '../support/surfaces.ts';
import { restClient } from '../support/rest.ts';
import { TOOLS } from '../../src/tools/index.ts';
import {
  createAgent,
  limits,
  merchantShop,
  must,
  newEmail,
  saveCard,
  signIn,
  startWorld,
  type MerchantShop,
  type World,
} from '../support/buyers.ts';
import { verifies } from '../support/requirements.ts';

let w: World;
let org: Org;
let stranger: Org;
before(async () => {
  w = await startWorld();
  org = await organization();
  stranger = await organization();
});
after(async () => {
  await w?.close();
});

const PRINCIPALS = [
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
type P = (typeof PRINCIPALS)[number];

interface Org {
  m: MerchantShop;
  tokens: Record<P, string>;
  integratorId: string;
}

async function consoleToken(userId: string, org: string, role: 'owner' | 'integrator') {
  return w.h.app.authenticator.sign({ typ: 'console', sub: userId, org, role }, 3600);
}

/** An organization with a shop and a credential for every principal of the matrix. */
async function organization(): Promise<Org> {
  const m = await merchantShop(w.h, { discoverable: true });
  const integratorId = `usr_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
  await w.h.db.execute('insert into users (id, email, name, is_staff, created_at) values (?, ?, null, false, now())', [
    integratorId,
    `${integratorId}@example.test`,
  ]);
  await w.h.db.execute(
    `insert into memberships (user_id, organization_id, role, invited_by, created_at) values (?, ?, 'integrator', ?, now())`,
    [integratorId, m.organizationId, m.ownerId],
  );
  const owner = await consoleToken(m.ownerId, m.organizationId, 'owner');
  const integrator = await consoleToken(integratorId, m.organizationId, 'integrator');
  const integratorKey = { name: 'integrator', scopes: ['merchant:read', 'merchant:write'] };
  const staff = restClient(w.h.url, await w.h.staffToken());
  must(
    await staff.post(`/v1/staff/organizations/${m.organizationId}/attestation`, {
      enabled: true,
      perBuyerCeilingMinor: 10_000,
      windowHours: 24,
    }),
    200,
  );
  const ownerApi = restClient(w.h.url, owner);
  const keyWith = async (scope: string) =>
    must(await ownerApi.post('/v1/console/api-keys', { name: scope, scopes: [scope] }), 201).token as string;
  const email = `matrix-${randomUUID().slice(0, 8)}@example.test`;
  const buyer = await signIn(w, email, m.shopId);
  const agent = (await createAgent(w, buyer, email)).token;
  return {
    m,
    integratorId,
    tokens: {
      owner,
      integrator,
      'key:read': await keyWith('merchant:read'),
      'key:write': await keyWith('merchant:write'),
      'key:admin': await keyWith('merchant:admin'),
      'key:attest': await keyWith('mandates:attest'),
      // A key the integrator made with every scope it may grant: it acts as an integrator (issue #32, Medium 3).
      'key:integrator': must(await restClient(w.h.url, integrator).post('/v1/console/api-keys', integratorKey), 201)
        .token,
      buyer,
      agent,
    },
  };
}

interface Op {
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

const READERS: readonly P[] = ['owner', 'integrator', 'key:read', 'key:integrator'];
const SHOPPERS: readonly P[] = ['owner', 'integrator', 'key:read', 'key:integrator', 'buyer', 'agent'];
/** What an integrator and its key may write besides reading: webhooks. */
const WEBHOOK_WRITERS: readonly P[] = ['owner', 'integrator', 'key:write', 'key:integrator'];
const CATALOG_WRITERS: readonly P[] = ['owner', 'key:write'];
const ADMINS: readonly P[] = ['owner', 'key:admin'];
const CONSOLE: readonly P[] = ['owner', 'integrator'];
const OWNER: readonly P[] = ['owner'];

const OPS: Op[] = [
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
];

/** The code a refused principal must get. */
function refusal(who: P): string {
  return who.startsWith('key:') ? 'insufficient_scope' : 'forbidden';
}

for (const op of OPS) {
  test(`${verifies('SPEC-5.4-owner', 'SPEC-5.4-integrator-limits')}${op.tool}: ${op.allowed.join(', ')} may; everyone else is refused; another organization gets 404`, async () => {
    for (const who of PRINCIPALS) {
      const call: Caller = restCaller(w.h, org.tokens[who]);
      const r = await call(op.tool, await op.input(org, who));
      if (op.allowed.includes(who)) {
        assert.ok(r.ok, `${op.tool} as ${who} must succeed: ${JSON.stringify(r)}`);
      } else {
        assert.equal(r.ok, false, `${op.tool} as ${who} must be refused`);
        const expected =
          op.tool === 'mint_buyer_session' && who.startsWith('key:') ? 'insufficient_scope' : refusal(who);
        // A key whose kind is admitted but lacks the scope gets insufficient_scope; a kind the operation does not admit
        // at all, forbidden.
        const kindAdmitted = op.allowed.some((a) => a.startsWith('key:'));
        let code = who.startsWith('key:') && !kindAdmitted ? 'forbidden' : expected;
        // An integrator's key holds read and write: refused where a write key may, it is its maker's role.
        if (who === 'key:integrator' && op.allowed.includes('key:write')) code = 'forbidden';
        assert.equal(!r.ok && r.code, code, `${op.tool} as ${who}: ${JSON.stringify(r)}`);
      }
    }
    if (op.scoped) {
      for (const who of ['owner', 'key:admin', 'key:write', 'key:read', 'integrator', 'key:integrator'] as const) {
        if (!op.allowed.includes(who)) continue;
        const r = await restCaller(w.h, stranger.tokens[who])(
          op.tool,
          await op.input(org, who === 'integrator' ? 'owner' : who),
        );
        assert.equal(!r.ok && r.code, 'not_found', `${op.tool} as another organization's ${who}: ${JSON.stringify(r)}`);
      }
    }
  });
}

test(`${verifies('SPEC-5.4-integrator-keys')}an integrator revokes only the keys it minted and never grants merchant:admin`, async () => {
  const integrator = restClient(w.h.url, org.tokens.integrator);
  const owners = must(
    await restClient(w.h.url, org.tokens.owner).post('/v1/console/api-keys', {
      name: 'owners',
      scopes: ['merchant:read'],
    }),
    201,
  );
  const r = await integrator.post(`/v1/console/api-keys/${owners.apiKey.id}/revoke`, {});
  assert.deepEqual([r.status, r.body.code], [403, 'forbidden']);
  const adminKey = await integrator.post('/v1/console/api-keys', {
    name: 'admin',
    scopes: ['merchant:read', 'merchant:admin'],
  });
  assert.deepEqual([adminKey.status, adminKey.body.code], [403, 'forbidden']);
});

test('list_shops answers only the caller’s organization’s shops', async () => {
  const mine = must(await restClient(w.h.url, org.tokens.owner).get('/v1/catalog/shops'), 200).shops.map(
    (s: { id: string }) => s.id,
  );
  assert.ok(mine.includes(org.m.shopId));
  assert.ok(!mine.includes(stranger.m.shopId), 'never another organization’s shop');
});

test('every operation a console user may call under /v1/integration or in the console area is in the matrix', () => {
  const inMatrix = new Set(OPS.map((o) => o.tool));
  const consoleTools = TOOLS.filter(
    (t) =>
      (t.area === 'console' || t.http.path.startsWith('/v1/integration/')) &&
      !t.auth.public &&
      t.auth.principals.some((p) => p === 'console_user'),
  );
  const missing = consoleTools.map((t) => t.name).filter((n) => !inMatrix.has(n));
  assert.deepEqual(missing, []);
});
