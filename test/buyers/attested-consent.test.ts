import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { restClient } from '../support/rest.ts';
import {
  buy,
  createAgent,
  limits,
  merchantShop,
  must,
  newEmail,
  saveCard,
  signIn,
  type MerchantShop,
} from '../support/buyers.ts';
import { worldPerFile } from '../support/world-per-file.ts';
import { verifies } from '../support/requirements.ts';

const w = worldPerFile();

const consoleToken = (userId: string, org: string, role: 'owner' | 'integrator') =>
  w.h.app.authenticator.sign({ typ: 'console', sub: userId, org, role }, 3600);
const staff = async () => restClient(w.h.url, await w.h.staffToken());
const owner = async (m: MerchantShop) => restClient(w.h.url, await consoleToken(m.ownerId, m.organizationId, 'owner'));

async function enable(m: MerchantShop, perBuyerCeilingMinor: number, windowHours = 24) {
  return must(
    await (
      await staff()
    ).post(`/v1/staff/organizations/${m.organizationId}/attestation`, {
      enabled: true,
      perBuyerCeilingMinor,
      windowHours,
    }),
    200,
  );
}

async function attestKey(m: MerchantShop): Promise<string> {
  return must(await (await owner(m)).post('/v1/console/api-keys', { name: 'attest', scopes: ['mandates:attest'] }), 201)
    .token;
}

const mint = (apiKey: string, m: MerchantShop, email: string, merchantAttested: boolean) =>
  restClient(w.h.url, apiKey).post('/v1/integration/buyer-sessions', { merchantId: m.shopId, email, merchantAttested });

/** A buyer who (in a full session, with codes) saved a card at the shop and created an agent. */
async function buyerReady(m: MerchantShop) {
  const email = newEmail();
  const session = await signIn(w, email, m.shopId);
  const instrument = await saveCard(w, session, email);
  const { agent, token } = await createAgent(w, session, email);
  return { email, session, instrumentId: instrument.id as string, agentId: agent.id as string, agentToken: token };
}

test(`${verifies('SPEC-5.6-attested-enabled-only', 'SPEC-5.3-attest-only-key', 'SPEC-2.3-key-last-used', 'SPEC-2.3-attest-key-state')}attested minting needs an organization enabled by staff and a key holding mandates:attest`, async () => {
  const m = await merchantShop(w.h);
  const email = newEmail();
  const noScope = await mint(m.apiKey, m, email, true);
  assert.deepEqual([noScope.status, noScope.body.code], [403, 'merchant_consent_not_enabled']);
  const o = await owner(m);
  const early = await o.post('/v1/console/api-keys', { name: 'attest', scopes: ['mandates:attest'] });
  assert.deepEqual([early.status, early.body.code], [403, 'merchant_consent_not_enabled']);
  assert.equal(must(await o.get('/v1/console/api-keys'), 200).attestAvailable, false);
  assert.equal(
    (await o.post(`/v1/staff/organizations/${m.organizationId}/attestation`, { enabled: true })).status,
    403,
    'staff only',
  );

  const on = await enable(m, 20_000);
  assert.deepEqual(on, {
    organizationId: m.organizationId,
    enabled: true,
    perBuyerCeilingMinor: 20_000,
    windowHours: 24,
  });
  const mixed = await o.post('/v1/console/api-keys', { name: 'mixed', scopes: ['mandates:attest', 'merchant:write'] });
  assert.equal(mixed.body.code, 'invalid_input', 'an attest key holds that scope alone');
  assert.equal((await mint(m.apiKey, m, email, true)).body.code, 'merchant_consent_not_enabled', 'still no scope');
  const attest = await attestKey(m);
  const session = must(await mint(attest, m, email, true), 201);
  assert.deepEqual([session.mode, session.attested, session.merchantId], ['bounded', true, m.shopId]);
  assert.equal(
    (await mint(attest, m, email, false)).body.code,
    'insufficient_scope',
    'an attest-only key mints only attested sessions',
  );

  const keys = must(await o.get('/v1/console/api-keys'), 200);
  assert.equal(keys.attestAvailable, true);
  const attestRow = keys.apiKeys.find((k: { scopes: string[] }) => k.scopes.includes('mandates:attest'));
  assert.equal(attestRow.state, 'active');
  assert.ok(attestRow.lastUsedAt, 'used once');
  must(await o.post('/v1/console/api-keys', { name: 'unused', scopes: ['merchant:read'] }), 201);
  const unused = must(await o.get('/v1/console/api-keys'), 200).apiKeys.find(
    (k: { name: string }) => k.name === 'unused',
  );
  assert.equal(unused.lastUsedAt, null, 'No usage recorded');

  must(await (await staff()).post(`/v1/staff/organizations/${m.organizationId}/attestation`, { enabled: false }), 200);
  assert.equal((await mint(attest, m, newEmail(), true)).body.code, 'merchant_consent_not_enabled');
  const off = must(await o.get('/v1/console/api-keys'), 200).apiKeys.find((k: { id: string }) => k.id === attestRow.id);
  assert.equal(off.state, 'attestation_disabled');
});

test(`${verifies('SPEC-5.6-attested-within-ceilings', 'SPEC-2.3-attested-label')}an attested session grants within the ceilings without a code, labelled "Set up by <shop>"`, async () => {
  const m = await merchantShop(w.h);
  await enable(m, 20_000, 24);
  const b = await buyerReady(m);
  const attested = restClient(w.h.url, must(await mint(await attestKey(m), m, b.email, true), 201).token);
  const over = await attested.post('/v1/buyer/permissions', {
    agentId: b.agentId,
    instrumentId: b.instrumentId,
    ...limits(w, { allowanceMinor: 30_000 }),
  });
  assert.deepEqual([over.status, over.body.code], [422, 'attestation_ceiling_exceeded']);
  const shortWindow = await attested.post('/v1/buyer/permissions', {
    agentId: b.agentId,
    instrumentId: b.instrumentId,
    ...limits(w, { perPurchaseCapMinor: 5000, allowanceMinor: 20_000, windowHours: 1 }),
  });
  assert.equal(
    shortWindow.body.code,
    'attestation_ceiling_exceeded',
    'a shorter window would spend the ceiling more than once',
  );
  const granted = must(
    await attested.post('/v1/buyer/permissions', {
      agentId: b.agentId,
      instrumentId: b.instrumentId,
      ...limits(w, { perPurchaseCapMinor: 10_000, allowanceMinor: 20_000 }),
    }),
    201,
  );
  const [shop] = await w.h.db.execute<{ name: string }>('select name from shops where id = ?', [m.shopId]);
  assert.equal(granted.label, `Set up by ${shop!.name}`);
  assert.equal(granted.attested, true);
  const seen = must(await restClient(w.h.url, b.session).get('/v1/buyer/permissions'), 200).permissions[0];
  assert.equal(seen.label, `Set up by ${shop!.name}`);
  for (const res of [
    await attested.post('/v1/buyer/card-setups', {}),
    await attested.post('/v1/buyer/verification-codes', { purpose: 'create_agent' }),
  ]) {
    assert.equal(res.status, 403, 'attestation does not open the other operations');
  }
  const plain = restClient(w.h.url, must(await mint(m.apiKey, m, b.email, false), 201).token);
  const refused = await plain.post('/v1/buyer/permissions', {
    agentId: b.agentId,
    instrumentId: b.instrumentId,
    ...limits(w),
  });
  assert.deepEqual([refused.status, refused.body.code], [403, 'forbidden']);
  assert.equal((await buy(restClient(w.h.url, b.agentToken), m.tierId)).status, 200);
});

test(`${verifies('SPEC-3-withdraw-no-replenish', 'SPEC-2.3-consent-summary')}an owner withdraws an attested permission with a reason; the allowance is not replenished`, async () => {
  const m = await merchantShop(w.h, { priceMinor: 8000 });
  await enable(m, 10_000, 24);
  const b = await buyerReady(m);
  const attest = await attestKey(m);
  const grant = async () => {
    const s = restClient(w.h.url, must(await mint(attest, m, b.email, true), 201).token);
    return must(
      await s.post('/v1/buyer/permissions', {
        agentId: b.agentId,
        instrumentId: b.instrumentId,
        ...limits(w, { perPurchaseCapMinor: 10_000, allowanceMinor: 10_000 }),
      }),
      201,
    );
  };
  const first = await grant();
  const agent = restClient(w.h.url, b.agentToken);
  assert.equal((await buy(agent, m.tierId)).status, 200);

  const stranger = await merchantShop(w.h);
  assert.equal(
    (await (await owner(stranger)).post(`/v1/console/attested-consent/permissions/${first.id}/revoke`, { reason: 'x' }))
      .status,
    404,
  );
  const integrator = restClient(w.h.url, await consoleToken(m.ownerId, m.organizationId, 'integrator'));
  assert.equal(
    (await integrator.post(`/v1/console/attested-consent/permissions/${first.id}/revoke`, { reason: 'x' })).status,
    403,
  );
  const o = await owner(m);
  assert.equal(
    (await o.post(`/v1/console/attested-consent/permissions/${first.id}/revoke`, {})).status,
    400,
    'a reason is required',
  );
  const withdrawn = must(
    await o.post(`/v1/console/attested-consent/permissions/${first.id}/revoke`, { reason: 'Customer asked us to' }),
    200,
  );
  assert.deepEqual([withdrawn.status, withdrawn.revokedReason], ['revoked', 'Customer asked us to']);
  assert.equal((await buy(agent, m.tierId)).body.code, 'permission_revoked');

  await grant();
  const again = await buy(agent, m.tierId);
  assert.equal(again.body.code, 'allowance_exhausted', 'spends stay counted after the withdrawal');
  const second = await createAgent(w, b.session, b.email, 'Second agent');
  const s2 = restClient(w.h.url, must(await mint(attest, m, b.email, true), 201).token);
  must(
    await s2.post('/v1/buyer/permissions', {
      agentId: second.agent.id,
      instrumentId: b.instrumentId,
      ...limits(w, { perPurchaseCapMinor: 10_000, allowanceMinor: 10_000 }),
    }),
    201,
  );
  const ceiling = await buy(restClient(w.h.url, second.token), m.tierId);
  assert.equal(ceiling.body.code, 'allowance_exhausted');
  assert.equal(
    ceiling.body.details.scope,
    'attested_ceiling',
    'the per-buyer ceiling spans the organization’s attested permissions',
  );

  const summary = must(await o.get('/v1/console/attested-consent'), 200);
  assert.equal(summary.enabled, true);
  assert.equal(summary.perBuyerCeilingMinor, 10_000);
  assert.equal(summary.attestKeys.length, 1);
  assert.deepEqual(summary.permissionCounts, { active: 2, expired: 0, revoked: 1, total: 3 });
  assert.deepEqual(
    summary.buyersNearCeiling.map((x: { email: string; spentMinor: number }) => [x.email, x.spentMinor]),
    [[b.email, 8000]],
  );
  assert.equal(summary.recentPermissions.length, 3);
  assert.match(summary.recentPermissions[0].label, /^Set up by /);
  assert.equal(
    summary.recentPermissions.find((x: { id: string }) => x.id === first.id).revokedReason,
    'Customer asked us to',
  );
});

test(`${verifies('SPEC-5.4-integrator-keys')}integrators manage API keys but never grant merchant:admin and revoke only keys they minted`, async () => {
  const m = await merchantShop(w.h);
  const integratorId = `usr_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
  await w.h.db.execute('insert into users (id, email, name, is_staff, created_at) values (?, ?, null, false, now())', [
    integratorId,
    `${integratorId}@example.test`,
  ]);
  await w.h.db.execute(
    `insert into memberships (user_id, organization_id, role, invited_by, created_at) values (?, ?, 'integrator', ?, now())`,
    [integratorId, m.organizationId, m.ownerId],
  );
  const integ = restClient(w.h.url, await consoleToken(integratorId, m.organizationId, 'integrator'));
  const o = await owner(m);
  const admin = await integ.post('/v1/console/api-keys', { name: 'admin', scopes: ['merchant:admin'] });
  assert.deepEqual([admin.status, admin.body.code], [403, 'forbidden']);
  const mine = must(
    await integ.post('/v1/console/api-keys', { name: 'mine', scopes: ['merchant:read', 'merchant:write'] }),
    201,
  );
  assert.equal(mine.apiKey.createdByUserId, integratorId);
  const ownersKey = must(await o.post('/v1/console/api-keys', { name: 'owner', scopes: ['merchant:read'] }), 201);
  assert.equal((await integ.post(`/v1/console/api-keys/${ownersKey.apiKey.id}/revoke`, {})).status, 403);
  assert.equal(must(await integ.post(`/v1/console/api-keys/${mine.apiKey.id}/revoke`, {}), 200).state, 'revoked');
  assert.equal((await restClient(w.h.url, mine.token).get(`/v1/integration/pools?merchantId=${m.shopId}`)).status, 401);
  must(await o.post(`/v1/console/api-keys/${ownersKey.apiKey.id}/revoke`, {}), 200);
  const other = await merchantShop(w.h);
  assert.equal((await (await owner(other)).post(`/v1/console/api-keys/${mine.apiKey.id}/revoke`, {})).status, 404);
});
