/**
 * Shops after creation (issue #12 item 3, issue #11 item 1): public settings with merchant:write, embed origins
 * set by the console owner or integrator (each bad input refused with the entry and the rule), and deletion:
 * refused while purchases are in flight, then gone from every read and from discovery, its rows kept.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import { SURFACES } from '../support/surfaces.ts';
import { key, must, shopWithTier, startSpineHarness, type Shop } from '../support/spine.ts';
import { verifies } from '../support/requirements.ts';

/** Moves another organization's key into the shop's, without its maker (no member there: such a key would be 401). */
const MOVE_KEY = 'update api_keys set organization_id = ?, created_by_user_id = null where organization_id = ?';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

const consoleToken = (userId: string, org: string, role: 'owner' | 'integrator') =>
  h.app.authenticator.sign({ typ: 'console', sub: userId, org, role }, 3600);

async function ownerOf(s: Shop) {
  const [row] = await h.db.execute<{ user_id: string }>(
    `select user_id from memberships where organization_id = ? and role = 'owner'`,
    [s.organizationId],
  );
  return restClient(h.url, await consoleToken(row!.user_id, s.organizationId, 'owner'));
}

async function integratorOf(s: Shop) {
  const id = `usr_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
  await h.db.execute('insert into users (id, email, name, is_staff, created_at) values (?, ?, null, false, now())', [
    id,
    `${id}@example.test`,
  ]);
  await h.db.execute(
    `insert into memberships (user_id, organization_id, role, invited_by, created_at) values (?, ?, 'integrator', null, now())`,
    [id, s.organizationId],
  );
  return restClient(h.url, await consoleToken(id, s.organizationId, 'integrator'));
}

const embed = (api: ReturnType<typeof restClient>, shopId: string, embedOrigin: unknown) =>
  api.put(`/v1/console/merchants/${shopId}/embed-origins`, { embedOrigin });

describe('embed origins', () => {
  test(`${verifies('SPEC-4.3-embed-origins-roles', 'SPEC-8-embed-origins-limits')}the owner and the integrator set them; they are normalised, deduplicated and shown on the shop`, async () => {
    const s = await shopWithTier(h);
    const set = must(
      await embed(
        await integratorOf(s),
        s.shopId,
        'HTTPS://Shop.Example:443, https://bücher.example,http://localhost:5173 , https://shop.example',
      ),
      200,
    );
    assert.deepEqual(set.embedOrigins, [
      'https://shop.example',
      'https://xn--bcher-kva.example',
      'http://localhost:5173',
    ]);
    assert.equal(set.embedOrigin, 'https://shop.example https://xn--bcher-kva.example http://localhost:5173');
    const read = must(await s.api.get(`/v1/catalog/shops/${s.shopId}`), 200);
    assert.deepEqual(read.embedOrigins, set.embedOrigins);
    const spaced = must(await embed(await ownerOf(s), s.shopId, '  https://a.example   https://b.example:8443 '), 200);
    assert.deepEqual(spaced.embedOrigins, ['https://a.example', 'https://b.example:8443']);
    const cleared = must(await embed(await ownerOf(s), s.shopId, null), 200);
    assert.deepEqual([cleared.embedOrigins, cleared.embedOrigin], [[], '']);
  });

  const BAD: [string, string, string, string][] = [
    [
      'four origins',
      'https://a.example https://b.example https://c.example https://d.example',
      'too_many',
      'https://a.example https://b.example https://c.example https://d.example',
    ],
    ['a path', 'https://shop.example/embed', 'path', 'https://shop.example/embed'],
    ['a trailing slash', 'https://shop.example/', 'path', 'https://shop.example/'],
    ['http for a host other than localhost', 'http://example.com', 'http_only_for_localhost', 'http://example.com'],
    ['javascript:', 'javascript:alert(1)', 'scheme', 'javascript:alert(1)'],
    ['an IPv4 literal', 'https://192.168.1.10', 'ip_literal', 'https://192.168.1.10'],
    ['an IPv6 literal', 'https://[::1]:8443', 'ip_literal', 'https://[::1]:8443'],
    ['an empty string', '', 'empty', ''],
    [
      'a trailing comma',
      'https://a.example, https://b.example,',
      'trailing_separator',
      'https://a.example, https://b.example,',
    ],
    [
      'mixed separators',
      'https://a.example, https://b.example https://c.example',
      'mixed_separators',
      'https://b.example https://c.example',
    ],
    ['user info', 'https://user:pw@shop.example', 'user_info', 'https://user:pw@shop.example'],
    ['a query', 'https://shop.example?x=1', 'query', 'https://shop.example?x=1'],
    ['a fragment', 'https://shop.example#top', 'fragment', 'https://shop.example#top'],
    ['a wildcard host', 'https://*.shop.example', 'host', 'https://*.shop.example'],
    ['no scheme', 'shop.example', 'not_an_origin', 'shop.example'],
  ];
  for (const [name, value, rule, entry] of BAD) {
    test(`${verifies('SPEC-8-embed-origins-limits')}refuses ${name} with 400 naming the entry and the rule`, async () => {
      const s = await shopWithTier(h);
      const o = await ownerOf(s);
      must(await embed(o, s.shopId, 'https://kept.example'), 200);
      const r = await embed(o, s.shopId, value);
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.code, 'invalid_embed_origin');
      assert.deepEqual(r.body.details, { field: 'embedOrigin', entry, rule });
      assert.ok(r.body.message.includes(JSON.stringify(entry)), r.body.message);
      assert.deepEqual(
        must(await s.api.get(`/v1/catalog/shops/${s.shopId}`), 200).embedOrigins,
        ['https://kept.example'],
        'nothing was changed',
      );
    });
  }

  test(`${verifies('SPEC-4.3-embed-origins-roles')}only console roles of the shop’s organization may use the console operation`, async () => {
    const s = await shopWithTier(h);
    const other = await shopWithTier(h);
    assert.equal((await embed(await ownerOf(other), s.shopId, 'https://a.example')).status, 404);
    const byKey = await embed(s.api, s.shopId, 'https://a.example');
    assert.deepEqual([byKey.status, byKey.body.code], [403, 'forbidden']);
    const unknown = await (
      await ownerOf(s)
    ).put(`/v1/console/merchants/${s.shopId}/embed-origins`, { embedOrigin: 'https://a.example', origins: [] });
    assert.deepEqual([unknown.status, unknown.body.code], [400, 'unknown_field']);
  });

  for (const surface of SURFACES.filter((x) => x.name !== 'rest')) {
    test(`set over ${surface.name}`, async () => {
      const s = await shopWithTier(h);
      const [row] = await h.db.execute<{ user_id: string }>(
        `select user_id from memberships where organization_id = ?`,
        [s.organizationId],
      );
      const { call, done } = await surface.connect(h, await consoleToken(row!.user_id, s.organizationId, 'owner'));
      try {
        const ok = await call('set_embed_origins', { id: s.shopId, embedOrigin: 'https://Partner.Example' });
        assert.ok(ok.ok, JSON.stringify(ok));
        assert.deepEqual(ok.output.embedOrigins, ['https://partner.example']);
        const bad = await call('set_embed_origins', { id: s.shopId, embedOrigin: 'http://partner.example' });
        assert.equal(!bad.ok && bad.code, 'invalid_embed_origin');
      } finally {
        await done();
      }
    });
  }
});

describe('public settings', () => {
  test('merchant:write changes name, description, discoverable and embed origins; others stay', async () => {
    const s = await shopWithTier(h);
    const patched = must(
      await s.api.call('PATCH', `/v1/integration/shops/${s.shopId}`, {
        name: 'Riverside',
        description: 'Concerts by the river',
        discoverable: true,
        embedOrigin: 'https://river.example',
      }),
      200,
    );
    assert.deepEqual(
      [patched.name, patched.description, patched.discoverable, patched.embedOrigins, patched.currency],
      ['Riverside', 'Concerts by the river', true, ['https://river.example'], 'EUR'],
    );
    const window = must(await restClient(h.url).get(`/v1/discovery/shops/${s.shopId}`), 200);
    assert.deepEqual(window.shop, {
      id: s.shopId,
      name: 'Riverside',
      description: 'Concerts by the river',
      currency: 'EUR',
    });
    const partial = must(await s.api.call('PATCH', `/v1/integration/shops/${s.shopId}`, { description: null }), 200);
    assert.deepEqual(
      [partial.name, partial.description, partial.embedOrigins],
      ['Riverside', null, ['https://river.example']],
    );
    const hidden = must(
      await (await ownerOf(s)).call('PATCH', `/v1/integration/shops/${s.shopId}`, { discoverable: false }),
      200,
    );
    assert.equal(hidden.discoverable, false);
    assert.equal((await restClient(h.url).get(`/v1/discovery/shops/${s.shopId}`)).status, 404);
  });

  test('refusals: read-only key, integrator, other organization, unknown field, bad origin', async () => {
    const s = await shopWithTier(h);
    const m = await h.merchant(['merchant:read']);
    await h.db.execute(MOVE_KEY, [s.organizationId, m.organizationId]);
    const readOnly = restClient(h.url, m.apiKey);
    const r1 = await readOnly.call('PATCH', `/v1/integration/shops/${s.shopId}`, { name: 'x' });
    assert.deepEqual([r1.status, r1.body.code], [403, 'insufficient_scope']);
    const r2 = await (await integratorOf(s)).call('PATCH', `/v1/integration/shops/${s.shopId}`, { name: 'x' });
    assert.deepEqual([r2.status, r2.body.code], [403, 'forbidden']);
    const other = await shopWithTier(h);
    assert.equal((await other.api.call('PATCH', `/v1/integration/shops/${s.shopId}`, { name: 'x' })).status, 404);
    const r3 = await s.api.call('PATCH', `/v1/integration/shops/${s.shopId}`, { currency: 'USD' });
    assert.deepEqual([r3.status, r3.body.code], [400, 'unknown_field']);
    const r4 = await s.api.call('PATCH', `/v1/integration/shops/${s.shopId}`, {
      name: 'x',
      embedOrigin: 'ftp://a.example',
    });
    assert.deepEqual([r4.status, r4.body.code, r4.body.details.rule], [400, 'invalid_embed_origin', 'scheme']);
    assert.equal(
      must(await s.api.get(`/v1/catalog/shops/${s.shopId}`), 200).name,
      'Spine Shop',
      'a refused change changes nothing',
    );
  });
});

describe('deleting a shop', () => {
  test('refused while a reservation is held, then gone from every read and from discovery, its rows kept', async () => {
    const s = await shopWithTier(h);
    must(await s.api.call('PATCH', `/v1/integration/shops/${s.shopId}`, { discoverable: true }), 200);
    const q = must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 2 }), 201);
    const rsv = must(await s.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key()), 201);
    const busy = await s.api.delete(`/v1/integration/shops/${s.shopId}`);
    assert.equal(busy.status, 409);
    assert.equal(busy.body.code, 'shop_has_purchases_in_flight');
    assert.deepEqual(busy.body.details, { heldReservations: 1, pendingPayments: 0 });
    assert.match(busy.body.message, /1 held or confirming reservation/);
    must(await s.api.post(`/v1/ticketing/reservations/${rsv.reservation.id}/release`, {}), 200);

    const gone = must(await s.api.delete(`/v1/integration/shops/${s.shopId}`), 200);
    assert.equal(gone.deleted, true);
    for (const path of [
      `/v1/catalog/shops/${s.shopId}`,
      `/v1/catalog/shops/${s.shopId}/events`,
      `/v1/catalog/events/${s.eventId}`,
      `/v1/integration/pools?merchantId=${s.shopId}`,
    ]) {
      const r = await s.api.get(path);
      assert.deepEqual([r.status, r.body.code], [404, 'not_found'], path);
    }
    const quote = await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 });
    assert.equal(quote.status, 404, 'nothing can be bought any more');
    assert.equal((await s.api.delete(`/v1/integration/shops/${s.shopId}`)).status, 404);
    const anonymous = await fetch(`${h.url}/v1/discovery/shops/${s.shopId}`);
    const unknown = await fetch(`${h.url}/v1/discovery/shops/shop_00000000000000000000000000`);
    assert.equal(anonymous.status, 404);
    assert.equal(await anonymous.text(), await unknown.text(), 'a deleted shop answers discovery like an unknown one');
    const listed = must(await restClient(h.url).get('/v1/discovery/shops?limit=100'), 200);
    assert.equal(
      listed.shops.some((x: any) => x.id === s.shopId),
      false,
    );
    const [row] = await h.db.execute<{ deleted_at: Date | null; n: string }>(
      'select s.deleted_at, (select count(*) from reservations r where r.shop_id = s.id) as n from shops s where s.id = ?',
      [s.shopId],
    );
    assert.ok(row?.deleted_at, 'the shop row is kept');
    assert.equal(Number(row?.n), 1, 'its purchase records are kept');
  });

  test(`${verifies('SPEC-5.3-admin-scope')}only merchant:admin keys and the console owner of the organization may delete`, async () => {
    const s = await shopWithTier(h);
    const m = await h.merchant(['merchant:read', 'merchant:write']);
    await h.db.execute(MOVE_KEY, [s.organizationId, m.organizationId]);
    const w = await restClient(h.url, m.apiKey).delete(`/v1/integration/shops/${s.shopId}`);
    assert.deepEqual([w.status, w.body.code], [403, 'insufficient_scope']);
    const i = await (await integratorOf(s)).delete(`/v1/integration/shops/${s.shopId}`);
    assert.deepEqual([i.status, i.body.code], [403, 'forbidden']);
    const other = await shopWithTier(h);
    assert.equal((await (await ownerOf(other)).delete(`/v1/integration/shops/${s.shopId}`)).status, 404);
    must(await (await ownerOf(s)).delete(`/v1/integration/shops/${s.shopId}`), 200);
  });
});
