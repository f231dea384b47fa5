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
import { createAgent, merchantShop, must, signIn, startWorld, type World } from '../support/buyers.ts';
import { verifies } from '../support/requirements.ts';
import { OPS, PRINCIPALS, useWorld, type Org, type P } from './role-matrix-ops.ts';

let w: World;
let org: Org;
let stranger: Org;
before(async () => {
  w = await startWorld();
  useWorld(w);
  org = await organization();
  stranger = await organization();
});
after(async () => {
  await w?.close();
});

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
