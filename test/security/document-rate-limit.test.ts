/**
 * Document links have a budget of their own per address (src/http/route-charges.ts, `chargeDocument`): each tickets PDF
 * or wallet pass, receipt or invoice is rendered anew (about 100 ms of CPU for a PDF), so an address gets as many a
 * minute as the strict budget (RATE_LIMIT_STRICT_PER_MINUTE), then 429 `rate_limited` with Retry-After, before
 * anything is rendered; its other requests keep their own budget.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import { buy, merchantShop, must } from '../support/buyers.ts';

let h: Harness;
before(async () => {
  h = await startHarness({ RATE_LIMIT_STRICT_PER_MINUTE: '3', SWEEP_INTERVAL_MS: '0', SANDBOX_DISPATCH_MS: '0' });
});
after(async () => {
  await h?.close();
});

test('a tickets PDF downloads three times a minute from one address, then 429 with Retry-After', async () => {
  const m = await merchantShop(h);
  const order = must(await buy(m.api, m.tierId, 1, { paymentMethod: 'pm_sandbox_visa' }), 200).order;
  const { pdf } = must(await m.api.get(`/v1/ticketing/orders/${order.id}/downloads`), 200);
  for (let i = 0; i < 3; i++) {
    const res = await fetch(pdf.url);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    assert.match(res.headers.get('ratelimit-policy') ?? '', /"documents";q=3;w=60/);
    await res.arrayBuffer();
  }
  const refused = await fetch(pdf.url);
  assert.equal(refused.status, 429);
  const body = (await refused.json()) as { code: string; retryAfter: number };
  assert.equal(body.code, 'rate_limited');
  assert.equal(refused.headers.get('retry-after'), String(body.retryAfter));
  assert.equal(refused.headers.get('content-disposition'), null, 'nothing of the file is sent');
  // The address's other requests are not spent by it.
  assert.equal((await restClient(h.url).get('/v1/openapi.json')).status, 200);
  assert.equal((await m.api.get(`/v1/ticketing/orders/${order.id}/downloads`)).status, 200);
});
