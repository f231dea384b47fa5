/** UCP platform profiles are cached by their Cache-Control: a loopback platform counts how often it is fetched. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startHarness, type Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import { shopWithTier } from '../support/acp.ts';

const V = '2026-04-08';
const PROFILE = {
  ucp: {
    version: V,
    services: {},
    payment_handlers: {},
    capabilities: { 'dev.ucp.shopping.checkout': [{ version: V }] },
  },
};
/** Path → the Cache-Control it is served with (none for /plain.json). */
const CACHE_CONTROL: Record<string, string | undefined> = {
  '/hour.json': 'public, max-age=3600',
  '/short.json': 'public, max-age=5',
  '/no-store.json': 'no-store',
  '/plain.json': undefined,
};
const fetches = new Map<string, number>();
let h: Harness;
let profiles: Server;
let base = '';
let apiKey = '';
before(async () => {
  profiles = createServer((req, res) => {
    const path = req.url ?? '';
    fetches.set(path, (fetches.get(path) ?? 0) + 1);
    const cc = CACHE_CONTROL[path];
    res.writeHead(200, { 'content-type': 'application/json', ...(cc ? { 'cache-control': cc } : {}) });
    res.end(JSON.stringify(PROFILE));
  });
  await new Promise<void>((resolve) => profiles.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(profiles.address() as AddressInfo).port}`;
  h = await startHarness({ SWEEP_INTERVAL_MS: '0', RATE_LIMIT_PER_MINUTE: '100000', WEBHOOK_ALLOW_LOOPBACK: 'true' });
  apiKey = (await shopWithTier(h)).apiKey;
});
after(async () => {
  await h?.close();
  profiles?.close();
});

/** One UCP request naming the profile at `path` (an unknown session: negotiation runs first, then 404). */
async function request(path: string) {
  const res = await restClient(h.url, apiKey).get('/ucp/v1/checkout-sessions/cs_unknown', {
    'ucp-agent': `profile="${base}${path}"`,
  });
  assert.equal(res.status, 404);
}

test('a profile is fetched once while its max-age lasts, and again once it has passed', async () => {
  for (let i = 0; i < 3; i++) await request('/hour.json');
  assert.equal(fetches.get('/hour.json'), 1);
  h.clock.advance(3601_000);
  await request('/hour.json');
  assert.equal(fetches.get('/hour.json'), 2);
});

test('a short max-age is raised to the 60 s floor, no max-age is kept 60 s, no-store is not kept', async () => {
  await request('/short.json');
  await request('/plain.json');
  h.clock.advance(30_000);
  await request('/short.json');
  await request('/plain.json');
  assert.deepEqual([fetches.get('/short.json'), fetches.get('/plain.json')], [1, 1]);
  h.clock.advance(31_000);
  await request('/short.json');
  await request('/plain.json');
  assert.deepEqual([fetches.get('/short.json'), fetches.get('/plain.json')], [2, 2]);
  await request('/no-store.json');
  await request('/no-store.json');
  assert.equal(fetches.get('/no-store.json'), 2);
});
