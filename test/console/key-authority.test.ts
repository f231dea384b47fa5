/**
 * A key carries at most its minter's role (issue #32, finding 3; spec §5.4): an integrator's key, whatever its
 * scopes, cannot refund, cancel an event, change the catalog or make a shop discoverable; an integrator never mints
 * merchant:admin or mandates:attest; a member's keys are revoked when they are removed, refused whenever their
 * membership is gone, and act with their current role (a demoted owner's keys as an integrator's, at once).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { listOutboxMail } from '../../src/mail/outbox.ts';
import type { Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import { SURFACES, type Caller } from '../support/surfaces.ts';
import { confirmWith, must, reserveOne, shopWithTier, startSpineHarness, type Shop } from '../support/spine.ts';
import { verifies } from '../support/requirements.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

/** A shop with one sold order, its owner's console client, and a member who joined by invitation with `role`. */
async function teamWith(role: 'owner' | 'integrator') {
  const s = await shopWithTier(h);
  const [row] = await h.db.execute<{ user_id: string }>(
    `select user_id from memberships where organization_id = ? and role = 'owner'`,
    [s.organizationId],
  );
  const claims = { typ: 'console', sub: row!.user_id, org: s.organizationId, role: 'owner' } as const;
  const owner = restClient(h.url, await h.app.authenticator.sign(claims, 3600));
  const email = `member-${randomUUID().slice(0, 8)}@example.test`;
  must(await owner.post('/v1/console/team/invitations', { email, role }), 201);
  const [mail] = await listOutboxMail(h.db, { to: email, limit: 1 });
  const token = /\/console\/accept#token=([A-Za-z0-9_-]+)/.exec(mail!.text)![1];
  const member = must(await restClient(h.url).post('/v1/console/team/invitations/accept', { token }), 200);
  const { reservation } = await reserveOne(s.api, s.tierId);
  const order = must(await confirmWith(s.api, reservation.id, 'pm_sandbox_visa'), 200).order;
  return { s, owner, member: { userId: member.userId as string, console: restClient(h.url, member.token) }, order };
}

async function mintKey(console: ReturnType<typeof restClient>, scopes: string[]): Promise<string> {
  return (await mintKeyWithId(console, scopes)).token;
}

async function mintKeyWithId(console: ReturnType<typeof restClient>, scopes: string[]) {
  const out = must(await console.post('/v1/console/api-keys', { name: `k-${randomUUID().slice(0, 6)}`, scopes }), 201);
  return { id: out.apiKey.id as string, token: out.token as string };
}

async function enableAttestation(organizationId: string) {
  const staff = restClient(h.url, await h.staffToken());
  const body = { enabled: true, perBuyerCeilingMinor: 10_000, windowHours: 24 };
  must(await staff.post(`/v1/staff/organizations/${organizationId}/attestation`, body), 200);
}

/** The owner-only writes the reviewer made with an integrator's key; each must be refused with `forbidden`. */
async function assertOwnerWritesRefused(call: Caller, s: Shop, orderId: string, ticketId: string, who: string) {
  const attempts = {
    refund_order: await call(
      'refund_order',
      { id: orderId, ticketIds: [ticketId], reason: 'Cannot attend', returnToPool: true },
      { idempotencyKey: randomUUID() },
    ),
    cancel_event: await call('cancel_event', { id: s.eventId }, { idempotencyKey: randomUUID() }),
    update_tier: await call('update_tier', { id: s.tierId, priceMinor: 1 }, { idempotencyKey: randomUUID() }),
    update_shop_settings: await call('update_shop_settings', { id: s.shopId, discoverable: true }),
  };
  for (const [tool, r] of Object.entries(attempts)) {
    assert.equal(!r.ok && r.code, 'forbidden', `${tool} with ${who}: ${JSON.stringify(r)}`);
  }
  // Nothing changed: the order stands, the event is on, the price is the owner's, the shop is not listed.
  assert.equal(must(await s.api.get(`/v1/ticketing/orders/${orderId}`), 200).state, 'completed');
  const event = must(await s.api.get(`/v1/catalog/events/${s.eventId}`), 200);
  assert.equal(event.event.cancelledAt, null);
  assert.equal(event.tiers.find((t: { id: string }) => t.id === s.tierId).priceMinor, 5000);
  assert.equal(must(await s.api.get(`/v1/catalog/shops/${s.shopId}`), 200).discoverable, false);
}

for (const surface of SURFACES) {
  const name = surface.name;
  test(`an integrator's write key integrates but cannot refund, cancel, reprice or list a shop (${name})`, async () => {
    const { s, member, order } = await teamWith('integrator');
    const token = await mintKey(member.console, ['merchant:read', 'merchant:write']);
    const { call, done } = await surface.connect(h, token);
    try {
      await assertOwnerWritesRefused(call, s, order.id, order.tickets[0].id, 'an integrator’s key');
      // What an integrator may do: read, manage webhooks, mint a buyer's bounded session.
      assert.ok((await call('list_pools', { merchantId: s.shopId })).ok);
      const hook = await call('create_webhook', {
        merchantId: s.shopId,
        url: 'https://hooks.example/i',
        events: ['order.completed'],
      });
      assert.ok(hook.ok, JSON.stringify(hook));
      const email = `b-${randomUUID().slice(0, 6)}@example.test`;
      const session = await call('mint_buyer_session', { merchantId: s.shopId, email });
      assert.ok(session.ok, JSON.stringify(session));
    } finally {
      await done();
    }
  });

  test(`an integrator's key stops working when the integrator is removed, over ${surface.name}`, async () => {
    const { s, owner, member } = await teamWith('integrator');
    const { id, token } = await mintKeyWithId(member.console, ['merchant:read']);
    const kept = await mintKey(owner, ['merchant:read']);
    const { call, done } = await surface.connect(h, token);
    try {
      assert.ok((await call('list_pools', { merchantId: s.shopId })).ok);
      const removed = must(await owner.delete(`/v1/console/team/members/${member.userId}`), 200);
      const after = await call('list_pools', { merchantId: s.shopId });
      assert.equal(!after.ok && after.code, 'unauthenticated', JSON.stringify(after));
      assert.deepEqual(removed.revokedApiKeyIds, [id]);
    } finally {
      await done();
    }
    const keys = must(await owner.get('/v1/console/api-keys'), 200).apiKeys;
    assert.equal(keys.find((k: { id: string }) => k.id === id).state, 'revoked', 'the owner sees the key revoked');
    // The owner's own keys are untouched.
    must(await restClient(h.url, kept).get(`/v1/integration/pools?merchantId=${s.shopId}`), 200);
  });
}

test(`${verifies('SPEC-5.4-integrator-keys')}an integrator may not mint a merchant:admin or a mandates:attest key`, async () => {
  const { s, member } = await teamWith('integrator');
  await enableAttestation(s.organizationId);
  for (const scopes of [['merchant:read', 'merchant:admin'], ['mandates:attest']]) {
    const r = await member.console.post('/v1/console/api-keys', { name: 'wide', scopes });
    assert.deepEqual([r.status, r.body.code], [403, 'forbidden'], `${scopes.join(' ')}: ${JSON.stringify(r.body)}`);
  }
  const keys = must(await member.console.get('/v1/console/api-keys'), 200).apiKeys;
  const made = keys.filter((k: { createdByUserId: string }) => k.createdByUserId === member.userId);
  assert.deepEqual(made, [], 'no key was made');
});

test('a demoted owner’s keys act as an integrator’s at once, and as an owner’s once promoted back', async () => {
  const { s, owner, member, order } = await teamWith('owner');
  await enableAttestation(s.organizationId);
  const wide = await mintKey(member.console, ['merchant:read', 'merchant:write', 'merchant:admin']);
  const attest = await mintKey(member.console, ['mandates:attest']);
  const attestedMint = () =>
    restClient(h.url, attest).post('/v1/integration/buyer-sessions', {
      merchantId: s.shopId,
      email: 'b@example.test',
      merchantAttested: true,
    });
  must(await attestedMint(), 201);
  must(await owner.call('PATCH', `/v1/console/team/members/${member.userId}`, { role: 'integrator' }), 200);

  const { call } = await SURFACES[0]!.connect(h, wide);
  await assertOwnerWritesRefused(call, s, order.id, order.tickets[0].id, 'a demoted owner’s key');
  const shop = await call('create_shop', { name: 'Another', currency: 'EUR' });
  assert.equal(!shop.ok && shop.code, 'insufficient_scope', 'merchant:admin no longer counts: ' + JSON.stringify(shop));
  assert.ok((await call('list_pools', { merchantId: s.shopId })).ok, 'reads go on');
  const refused = await attestedMint();
  const why = 'mandates:attest no longer counts';
  assert.deepEqual([refused.status, refused.body.code], [403, 'merchant_consent_not_enabled'], why);

  must(await owner.call('PATCH', `/v1/console/team/members/${member.userId}`, { role: 'owner' }), 200);
  assert.ok((await call('create_shop', { name: 'Another', currency: 'EUR' })).ok);
  must(await attestedMint(), 201);
});

test('a key whose minter is no longer a member is refused, however the membership ended', async () => {
  const { s, member } = await teamWith('integrator');
  const token = await mintKey(member.console, ['merchant:read']);
  must(await restClient(h.url, token).get(`/v1/integration/pools?merchantId=${s.shopId}`), 200);
  const ended = [member.userId, s.organizationId];
  await h.db.execute('delete from memberships where user_id = ? and organization_id = ?', ended);
  const r = await restClient(h.url, token).get(`/v1/integration/pools?merchantId=${s.shopId}`);
  assert.deepEqual([r.status, r.body.code], [401, 'unauthenticated']);
  // The bootstrap key is its owner's and goes on working while they are the owner (every call of `s.api` above).
  must(await s.api.get(`/v1/integration/pools?merchantId=${s.shopId}`), 200);
});
