/**
 * Abuse: the rate limit (issue #10, finding 3). Unauthenticated and failed requests count against the client address,
 * authenticated ones against the principal; the counters live in PostgreSQL, shared by every server process; health
 * checks are never limited; sign-in, code and token endpoints have a stricter budget. Over it: 429 `rate_limited` with
 * `retryAfter` and a matching `Retry-After` header.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/kernel/config.ts';
import { startHarness } from '../support/harness.ts';
import { restClient, type RestResponse } from '../support/rest.ts';
import { serverEnvFor } from '../support/database.ts';

const LIMITS = { RATE_LIMIT_PER_MINUTE: '20', RATE_LIMIT_STRICT_PER_MINUTE: '5', SWEEP_INTERVAL_MS: '0', WEBHOOK_DISPATCH_MS: '0', SANDBOX_DISPATCH_MS: '0' };

function assertLimited(res: RestResponse) {
  assert.equal(res.status, 429, JSON.stringify(res.body));
  assert.equal(res.body.code, 'rate_limited');
  assert.equal(typeof res.body.message, 'string');
  assert.ok(Number.isInteger(res.body.retryAfter) && res.body.retryAfter >= 1);
  assert.equal(res.headers.get('retry-after'), String(res.body.retryAfter));
}

test('requests with junk bearers are counted against the client address, and refused past its budget', async (t) => {
  const h = await startHarness(LIMITS);
  t.after(() => h.close());
  const statuses: number[] = [];
  for (let i = 0; i < 24; i++) {
    const res = await restClient(h.url, `junk-${crypto.randomUUID()}`).get('/v1/catalog/shops/shop_x');
    statuses.push(res.status);
    if (i === 23) assertLimited(res);
  }
  assert.ok(statuses.slice(0, 20).every((s) => s === 401), statuses.join(','));
  // The health checks are never limited; an anonymous request from the same address is.
  assert.equal((await restClient(h.url).get('/healthz')).status, 200);
  assert.equal((await restClient(h.url).get('/readyz')).status, 200);
  assertLimited(await restClient(h.url).get('/v1/catalog/shops/shop_x'));
});

test('an authenticated principal has its own budget, whatever address it calls from', async (t) => {
  const h = await startHarness(LIMITS);
  t.after(() => h.close());
  const a = await h.merchant();
  const b = await h.merchant();
  for (let i = 0; i < 20; i++) assert.equal((await restClient(h.url, a.apiKey).get(`/v1/integration/pools?merchantId=${a.shopId}`)).status, 200);
  assertLimited(await restClient(h.url, a.apiKey).get(`/v1/integration/pools?merchantId=${a.shopId}`));
  // Another principal at the same address is not affected, nor is an anonymous caller.
  assert.equal((await restClient(h.url, b.apiKey).get(`/v1/integration/pools?merchantId=${b.shopId}`)).status, 200);
  assert.equal((await restClient(h.url).get('/v1/catalog/shops/shop_x')).status, 401);
});

test('concurrent requests of one principal, charged together, are served exactly up to the budget', async (t) => {
  const h = await startHarness(LIMITS);
  t.after(() => h.close());
  const a = await h.merchant();
  // 30 at once on a budget of 20: the charges that wait for the counter's statement are charged by the next one together.
  const all = await Promise.all(Array.from({ length: 30 }, () => restClient(h.url, a.apiKey).get(`/v1/integration/pools?merchantId=${a.shopId}`)));
  assert.equal(all.filter((r) => r.status === 200).length, 20, JSON.stringify(all.map((r) => r.status)));
  for (const r of all.filter((x) => x.status !== 200)) assertLimited(r);
  assertLimited(await restClient(h.url, a.apiKey).get(`/v1/integration/pools?merchantId=${a.shopId}`));
});

test('two server processes share one budget through PostgreSQL', async (t) => {
  const h = await startHarness(LIMITS);
  const other = await createApp(loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...serverEnvFor(h.dbUrl), ...LIMITS }), h.db, {
    clock: h.clock,
    log: pino({ level: 'silent' }),
  });
  const otherUrl = await other.listen();
  t.after(async () => {
    await other.close();
    await h.close();
  });
  const statuses: number[] = [];
  for (let i = 0; i < 12; i++) {
    statuses.push((await restClient(h.url).get('/v1/catalog/shops/shop_x')).status);
    statuses.push((await restClient(otherUrl).get('/v1/catalog/shops/shop_x')).status);
  }
  assert.deepEqual(statuses.slice(0, 20), Array(20).fill(401));
  assert.deepEqual(statuses.slice(20), [429, 429, 429, 429]);
});

test('sign-in, code and token endpoints have a stricter budget: token guesses are refused after five', async (t) => {
  const h = await startHarness(LIMITS);
  t.after(() => h.close());
  const anon = restClient(h.url);
  const codes: string[] = [];
  for (let i = 0; i < 6; i++) {
    const res = await anon.post('/v1/buyer/sessions', { token: `guess-${i}-${'x'.repeat(30)}` });
    codes.push(res.body.code);
    if (i === 5) assertLimited(res);
  }
  assert.ok(codes.slice(0, 5).every((c) => c !== 'rate_limited'), codes.join(','));
  // The ordinary budget is untouched by the strict one running out.
  assert.equal((await anon.get('/v1/catalog/shops/shop_x')).status, 401);
});
