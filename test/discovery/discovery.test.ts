/**
 * Discovery (spec §1, §5.2, §7): anonymous clients read the window and the ACP product feed of a discoverable
 * shop over every surface; unknown and non-discoverable shops answer the same 404; REST answers carry ETag and
 * Cache-Control, and a repeated GET with If-None-Match gets 304.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { startHarness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import { SURFACES } from '../support/surfaces.ts';
import { key, must, startSpineHarness } from '../support/spine.ts';
import { verifies } from '../support/requirements.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

const DAY = 86_400_000;

interface Catalog {
  api: ReturnType<typeof restClient>;
  shopId: string;
  eventId: string;
  poolId: string;
  onSaleTier: string;
  laterTier: string;
  hiddenTier: string;
  pastEventId: string;
}

/**
 * A discoverable shop: an upcoming event with a tier on sale, one whose sale opens later and one not sellable; a past
 * event.
 */
async function discoverableShop(opts: { discoverable?: boolean } = {}): Promise<Catalog> {
  const m = await h.merchant();
  const api = restClient(h.url, m.apiKey);
  const now = h.clock.now().getTime();
  const shop = must(
    await api.post('/v1/integration/shops', {
      name: 'Riverside Hall',
      currency: 'EUR',
      discoverable: opts.discoverable ?? true,
    }),
    201,
  );
  const event = must(
    await api.post('/v1/integration/events', {
      merchantId: shop.id,
      title: 'Night Orchestra',
      venue: 'Riverside Hall',
      startsAt: new Date(now + 30 * DAY).toISOString(),
      endsAt: new Date(now + 30 * DAY + 3 * 3_600_000).toISOString(),
    }),
    201,
  );
  const pool = must(
    await api.post('/v1/integration/pools', { merchantId: shop.id, eventId: event.id, capacity: 20 }),
    201,
  );
  const tier = (body: Record<string, unknown>) =>
    api
      .post('/v1/integration/tiers', { eventId: event.id, poolId: pool.id, name: 'Stalls', priceMinor: 4500, ...body })
      .then((r) => must(r, 201).id as string);
  const onSaleTier = await tier({ name: 'Stalls', maxQtyPerPurchase: 4 });
  const laterTier = await tier({
    name: 'Balcony',
    priceMinor: 3000,
    onSaleStart: new Date(now + 2 * DAY).toISOString(),
  });
  const hiddenTier = await tier({ name: 'Staff', priceMinor: 0, sellable: false });
  const past = must(
    await api.post('/v1/integration/events', {
      merchantId: shop.id,
      title: 'Last Year',
      startsAt: new Date(now - 10 * DAY).toISOString(),
    }),
    201,
  );
  return {
    api,
    shopId: shop.id,
    eventId: event.id,
    poolId: pool.id,
    onSaleTier,
    laterTier,
    hiddenTier,
    pastEventId: past.id,
  };
}

// `/mcp` over HTTP answers 401 without a credential (MCP authorization, test/oauth/): anonymous discovery runs
// elsewhere.
for (const surface of SURFACES.filter((s) => s.anonymous)) {
  describe(`discovery over ${surface.name}, anonymously`, () => {
    test(`${verifies('SPEC-5.2-discovery-public')}the window shows upcoming events, tiers for sale, prices and live availability`, async () => {
      const c = await discoverableShop();
      must(
        await c.api.post(
          '/v1/ticketing/reservations',
          {
            quoteId: must(await c.api.post('/v1/ticketing/quotes', { tierId: c.onSaleTier, quantity: 3 }), 201).quoteId,
          },
          key(),
        ),
        201,
      );
      const { call, done } = await surface.connect(h);
      try {
        const r = await call('get_shop_window', { id: c.shopId });
        assert.ok(r.ok, JSON.stringify(r));
        assert.deepEqual(r.output.shop, { id: c.shopId, name: 'Riverside Hall', description: null, currency: 'EUR' });
        assert.deepEqual(
          r.output.events.map((e: any) => e.id),
          [c.eventId],
          'past events are not in the window',
        );
        const [event] = r.output.events;
        assert.equal(event.venue, 'Riverside Hall');
        assert.deepEqual(
          event.tiers.map((t: any) => t.id),
          [c.onSaleTier, c.laterTier],
          'a tier that is not sellable is not shown',
        );
        const [stalls, balcony] = event.tiers;
        assert.deepEqual(
          {
            price: stalls.priceMinor,
            currency: stalls.currency,
            onSale: stalls.onSale,
            max: stalls.maxQtyPerPurchase,
            available: stalls.availableCount,
          },
          { price: 4500, currency: 'EUR', onSale: true, max: 4, available: 17 },
        );
        assert.equal(balcony.onSale, false);
        assert.equal(balcony.availableCount, 17, 'tiers on one pool share its live availability');
        assert.equal('organizationId' in r.output.shop, false, 'the public never sees the organization');
      } finally {
        await done();
      }
    });

    test('the product feed lists events as ACP products and tiers as variants a quote accepts', async () => {
      const c = await discoverableShop();
      const { call, done } = await surface.connect(h);
      try {
        const r = await call('get_product_feed', { id: c.shopId });
        assert.ok(r.ok, JSON.stringify(r));
        assert.deepEqual(Object.keys(r.output), ['products']);
        assert.equal(r.output.products.length, 1);
        const [product] = r.output.products;
        assert.deepEqual(Object.keys(product).sort(), ['description', 'id', 'title', 'url', 'variants']);
        assert.equal(product.id, c.eventId);
        assert.equal(product.title, 'Night Orchestra');
        assert.match(product.description.plain, /Night Orchestra at Riverside Hall/);
        assert.equal(new URL(product.url).pathname, `/v1/discovery/shops/${c.shopId}`);
        const [stalls, balcony] = product.variants;
        assert.deepEqual(stalls, {
          id: c.onSaleTier,
          title: 'Night Orchestra - Stalls',
          price: { amount: 4500, currency: 'EUR' },
          availability: { available: true, status: 'in_stock' },
          categories: [{ value: 'Arts & Entertainment > Event Tickets', taxonomy: 'google_product_category' }],
          variant_options: [{ name: 'Tier', value: 'Stalls' }],
          seller: { name: 'Riverside Hall' },
        });
        assert.deepEqual(balcony.availability, { available: false, status: 'not_on_sale_yet' });
        assert.equal(product.variants.length, 2);
        const meta = await call('get_product_feed_metadata', { id: c.shopId });
        assert.ok(meta.ok, JSON.stringify(meta));
        assert.equal(meta.output.id, `feed_${c.shopId}`);
        assert.ok(!Number.isNaN(Date.parse(meta.output.updated_at)));
      } finally {
        await done();
      }
      // The variant id is the tier id: a quote takes it as is.
      must(await c.api.post('/v1/ticketing/quotes', { tierId: c.onSaleTier, quantity: 1 }), 201);
    });

    test(`${verifies('SPEC-7-discovery-404', 'SPEC-2.3-discoverable')}unknown and non-discoverable shops answer the same 404`, async () => {
      const hidden = await discoverableShop({ discoverable: false });
      const { call, done } = await surface.connect(h);
      try {
        for (const tool of ['get_shop_window', 'get_product_feed', 'get_product_feed_metadata']) {
          const a = await call(tool, { id: hidden.shopId });
          const b = await call(tool, { id: 'shop_00000000000000000000000000' });
          assert.equal(a.ok, false);
          assert.equal(!a.ok && a.code, 'not_found');
          assert.ok(!a.ok && !b.ok);
          assert.deepEqual([a.code, a.message, a.status], [b.code, b.message, b.status], `${tool}: the answers differ`);
        }
        const list = await call('list_discoverable_shops', { limit: 100 });
        assert.ok(list.ok);
        assert.equal(
          list.output.shops.some((s: any) => s.id === hidden.shopId),
          false,
        );
      } finally {
        await done();
      }
    });
  });
}

describe('discovery over REST', () => {
  test('the directory lists discoverable shops page by page', async () => {
    const a = await discoverableShop();
    const b = await discoverableShop();
    const anon = restClient(h.url);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = must(await anon.get(`/v1/discovery/shops?limit=1${cursor ? `&cursor=${cursor}` : ''}`), 200);
      assert.ok(page.shops.length <= 1);
      seen.push(...page.shops.map((s: any) => s.id));
      cursor = page.nextCursor;
    } while (cursor);
    assert.ok(seen.includes(a.shopId) && seen.includes(b.shopId));
  });

  test(`${verifies('SPEC-7-discovery-404')}404s are byte-identical for unknown, non-discoverable and deleted shops, and never cached`, async () => {
    const hidden = await discoverableShop({ discoverable: false });
    const deleted = await discoverableShop();
    assert.equal(
      await fetch(`${h.url}/v1/discovery/shops/${deleted.shopId}`).then(async (r) => (await r.arrayBuffer(), r.status)),
      200,
    );
    must(await deleted.api.delete(`/v1/integration/shops/${deleted.shopId}`), 200);
    const anon = restClient(h.url);
    for (const path of ['', '/feed', '/feed/metadata']) {
      const a = await fetch(`${h.url}/v1/discovery/shops/${hidden.shopId}${path}`);
      const b = await fetch(`${h.url}/v1/discovery/shops/shop_00000000000000000000000000${path}`);
      const d = await fetch(`${h.url}/v1/discovery/shops/${deleted.shopId}${path}`);
      assert.equal(a.status, 404);
      assert.equal(b.status, 404);
      assert.equal(d.status, 404);
      const unknownBody = await b.text();
      assert.equal(await a.text(), unknownBody);
      assert.equal(await d.text(), unknownBody, 'a deleted shop answers exactly as an unknown one');
      assert.equal(d.headers.get('cache-control'), 'no-store');
      assert.equal(a.headers.get('cache-control'), 'no-store');
      assert.equal(a.headers.get('etag'), null);
    }
    // A credential changes nothing: discovery is about the shop's flag, not the caller.
    const owner = await anon.get(`/v1/discovery/shops/${hidden.shopId}`);
    assert.equal(owner.status, 404);
    assert.equal((await hidden.api.get(`/v1/discovery/shops/${hidden.shopId}`)).status, 404);
  });

  test('answers carry ETag and Cache-Control; If-None-Match gets 304 until availability changes', async () => {
    const c = await discoverableShop();
    for (const [path, maxAge] of [
      ['', 10],
      ['/feed', 60],
      ['/feed/metadata', 60],
    ] as const) {
      const url = `${h.url}/v1/discovery/shops/${c.shopId}${path}`;
      const first = await fetch(url);
      assert.equal(first.status, 200);
      const etag = first.headers.get('etag');
      assert.match(etag ?? '', /^"[A-Za-z0-9_-]{43}"$/);
      assert.equal(first.headers.get('cache-control'), `public, max-age=${maxAge}`);
      await first.arrayBuffer();
      const again = await fetch(url, { headers: { 'if-none-match': etag! } });
      assert.equal(again.status, 304);
      assert.equal(await again.text(), '');
      assert.equal(again.headers.get('etag'), etag);
      const weak = await fetch(url, { headers: { 'if-none-match': `"other", W/${etag}` } });
      assert.equal(weak.status, 304, 'If-None-Match uses the weak comparison');
      const stale = await fetch(url, { headers: { 'if-none-match': '"stale"' } });
      assert.equal(stale.status, 200);
      await stale.arrayBuffer();
    }
    const before = (await fetch(`${h.url}/v1/discovery/shops/${c.shopId}`)).headers.get('etag')!;
    must(
      await c.api.post(
        '/v1/ticketing/reservations',
        { quoteId: must(await c.api.post('/v1/ticketing/quotes', { tierId: c.onSaleTier, quantity: 1 }), 201).quoteId },
        key(),
      ),
      201,
    );
    const after = await fetch(`${h.url}/v1/discovery/shops/${c.shopId}`, { headers: { 'if-none-match': before } });
    assert.equal(after.status, 200, 'a sale changes the window, so the old ETag no longer matches');
    assert.equal((await after.json()).events[0].tiers[0].availableCount, 19);
  });

  test('the OpenAPI document marks discovery public and cacheable', async () => {
    const doc = must(await restClient(h.url).get('/v1/openapi.json'), 200);
    for (const path of [
      '/v1/discovery/shops',
      '/v1/discovery/shops/{id}',
      '/v1/discovery/shops/{id}/feed',
      '/v1/discovery/shops/{id}/feed/metadata',
    ]) {
      const op = doc.paths[path].get;
      assert.deepEqual(op.security, [], path);
      assert.deepEqual(op.tags, ['discovery']);
      assert.ok(op.responses['304'], `${path} documents 304`);
      assert.ok(op.parameters.some((p: any) => p.name === 'If-None-Match'));
    }
  });
});

describe('discovery rate limit', () => {
  test(`${verifies('SPEC-7-rate-limited')}an anonymous client over its budget gets 429 with retryAfter and Retry-After`, async () => {
    const limited = await startHarness({
      RATE_LIMIT_PER_MINUTE: '3',
      SWEEP_INTERVAL_MS: '0',
      SANDBOX_DISPATCH_MS: '0',
      WEBHOOK_DISPATCH_MS: '0',
    });
    try {
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i < 4; i++) {
        last = await fetch(`${limited.url}/v1/discovery/shops`);
        statuses.push(last.status);
        if (i < 3) await last.arrayBuffer();
      }
      assert.deepEqual(statuses, [200, 200, 200, 429]);
      const body = await last!.json();
      assert.equal(body.code, 'rate_limited');
      assert.ok(body.retryAfter >= 1);
      assert.equal(last!.headers.get('retry-after'), String(body.retryAfter));
    } finally {
      await limited.close();
    }
  });
});
