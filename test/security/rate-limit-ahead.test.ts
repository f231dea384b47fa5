/**
 * Rate-limit points taken ahead (src/http/budget-charges.ts): a busy caller's counter statement takes up to a
 * hundredth of its budget more, which the process gives to that caller's next charges without a statement. One process
 * still admits exactly the budget, each point once; two processes never admit more than the budget together, and at
 * most one lease less; a quiet caller and a budget under 100 points take nothing ahead.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/kernel/config.ts';
import { serverEnvFor } from '../support/database.ts';
import { startHarness } from '../support/harness.ts';
import { restClient, type RestResponse } from '../support/rest.ts';

/** A budget of 400 points a minute: 4 taken ahead (`leaseFor`). */
const LIMITS = {
  RATE_LIMIT_PER_MINUTE: '400',
  SWEEP_INTERVAL_MS: '0',
  WEBHOOK_DISPATCH_MS: '0',
  SANDBOX_DISPATCH_MS: '0',
};

/** The caller budget's counts on `/metrics` of the server at `url`. */
async function callerCounts(url: string): Promise<{ statements: number; byStatement: number; ahead: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (line: string) => Number(new RegExp(`^${line} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  return {
    statements: value('tessera_rate_limit_statements_total\\{policy="caller"\\}'),
    byStatement: value('tessera_rate_limit_charges_total\\{policy="caller",by="statement"\\}'),
    ahead: value('tessera_rate_limit_charges_total\\{policy="caller",by="ahead"\\}'),
  };
}

/** The points left that an answer's `RateLimit` header gives for the caller budget. */
const remainingOf = (res: RestResponse) => Number(/"caller";r=(\d+)/.exec(res.headers.get('ratelimit') ?? '')?.[1]);

/** `waves` bursts of `width` concurrent reads, each burst spread over `urls` in turn; every answer. */
async function bursts(urls: string[], apiKey: string, shopId: string, waves: number, width: number) {
  const out: RestResponse[] = [];
  for (let w = 0; w < waves; w++)
    out.push(
      ...(await Promise.all(
        Array.from({ length: width }, (_, i) =>
          restClient(urls[(w * width + i) % urls.length]!, apiKey).get(`/v1/integration/pools?merchantId=${shopId}`),
        ),
      )),
    );
  return out;
}

test('one process: a busy caller takes points ahead and is still served exactly its budget, each point once', async (t) => {
  const h = await startHarness(LIMITS);
  t.after(() => h.close());
  const a = await h.merchant();
  // A quiet caller (one request at a time) takes nothing ahead: one statement per charge.
  for (let i = 0; i < 3; i++)
    assert.equal((await restClient(h.url, a.apiKey).get(`/v1/integration/pools?merchantId=${a.shopId}`)).status, 200);
  assert.deepEqual(await callerCounts(h.url), { statements: 3, byStatement: 3, ahead: 0 });
  // 417 more in bursts of 8: 397 points are left, and the rest are refused.
  const all = await bursts([h.url], a.apiKey, a.shopId, 52, 8);
  all.push(...(await bursts([h.url], a.apiKey, a.shopId, 1, 1)));
  const served = all.filter((r) => r.status === 200);
  assert.equal(served.length, 397, JSON.stringify(all.map((r) => r.status)));
  assert.ok(
    all.every((r) => r.status === 200 || (r.status === 429 && r.body.code === 'rate_limited')),
    'every other answer is 429 rate_limited',
  );
  // Each point was given once: the answers' remaining points are 396 down to 0, each once.
  assert.deepEqual(
    served.map(remainingOf).sort((x, y) => x - y),
    Array.from({ length: 397 }, (_, i) => i),
  );
  const counts = await callerCounts(h.url);
  assert.ok(counts.ahead > 0, `charges answered from points taken ahead: ${JSON.stringify(counts)}`);
  assert.equal(counts.byStatement + counts.ahead, 420);
  assert.ok(counts.statements < counts.byStatement, JSON.stringify(counts));
});

test('two processes on one database never admit more than the budget together, and at most one lease less', async (t) => {
  const h = await startHarness(LIMITS);
  const other = await createApp(
    loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...serverEnvFor(h.dbUrl), ...LIMITS }),
    h.db,
    { clock: h.clock, log: pino({ level: 'silent' }) },
  );
  const otherUrl = await other.listen();
  t.after(async () => {
    await other.close();
    await h.close();
  });
  const a = await h.merchant();
  const all = await bursts([h.url, otherUrl], a.apiKey, a.shopId, 60, 8);
  const served = all.filter((r) => r.status === 200).length;
  // Each process can hold at most 4 points taken ahead that the other cannot give.
  assert.ok(served <= 400 && served >= 396, `served ${served} of a budget of 400`);
  assert.ok(all.every((r) => r.status === 200 || r.status === 429));
  const ahead = (await callerCounts(h.url)).ahead + (await callerCounts(otherUrl)).ahead;
  assert.ok(ahead > 0, 'some charges were answered from points taken ahead');
  // The shared row counts every point given, the ones taken ahead included: never fewer than were served.
  const rows = await h.db.execute<{ points: number }>("select points from rate_limits where key like 'who:%'");
  assert.equal(rows.length, 1);
  assert.ok(rows[0]!.points >= served, `counted ${rows[0]!.points}, served ${served}`);
});

test('a small budget takes nothing ahead: concurrent charges are each a point of the counter', async (t) => {
  const h = await startHarness({ ...LIMITS, RATE_LIMIT_PER_MINUTE: '99' });
  t.after(() => h.close());
  const a = await h.merchant();
  const all = await bursts([h.url], a.apiKey, a.shopId, 13, 8);
  assert.equal(all.filter((r) => r.status === 200).length, 99);
  const counts = await callerCounts(h.url);
  assert.equal(counts.ahead, 0);
  assert.equal(counts.byStatement, 104);
});
