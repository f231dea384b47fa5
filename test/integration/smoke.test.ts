import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import { verifies } from '../support/requirements.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  await h?.close();
});

test(`${verifies('SPEC-4.1-pools-listing')}a merchant lists the pools of its shop`, async () => {
  const m = await h.merchant();
  const api = restClient(h.url, m.apiKey);
  const pool = await api.post('/v1/integration/pools', { merchantId: m.shopId, capacity: 50, title: 'Floor' });
  assert.equal(pool.status, 201, JSON.stringify(pool.body));
  const list = await api.get(`/v1/integration/pools?merchantId=${m.shopId}`);
  assert.equal(list.status, 200);
  assert.equal(list.body.pools.length, 1);
  assert.equal(list.body.pools[0].availableCount, 50);
});
