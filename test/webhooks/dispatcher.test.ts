import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { createApp, type App } from '../../src/app.ts';
import { Database } from '../../src/storage/database.ts';
import { emitEvent } from '../../src/webhooks/outbox.ts';
import type { Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import type { Receiver } from '../support/webhook-receiver.ts';
import { startWebhookHarness } from './harness.ts';
import { verifyStandardWebhook } from '../support/webhook-verify.ts';

let h: Harness;
let rx: Receiver;
before(async () => ({ h, rx } = await startWebhookHarness()));
after(async () => {
  await h?.close();
  await rx?.close();
});

/** Another server process on the same database (its own connection pool), sharing the test clock. */
async function secondProcess(dispatchMs: number): Promise<{ app: App; close(): Promise<void> }> {
  const db = await Database.open(h.dbUrl);
  const app = await createApp({ ...h.app.config, webhookDispatchMs: dispatchMs }, db, {
    clock: h.clock,
    log: pino({ level: 'silent' }),
  });
  return {
    app,
    async close() {
      await app.close();
      await db.close();
    },
  };
}

async function subscribe(merchantId: string, apiKey: string, path: string) {
  const res = await restClient(h.url, apiKey).post('/v1/integration/webhooks', {
    merchantId,
    url: `${rx.url}${path}`,
    events: ['order.completed'],
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { id: string; secret: string };
}

test('two processes dispatching concurrently deliver each event exactly once per subscription', async () => {
  const m = await h.merchant();
  const hookA = await subscribe(m.shopId, m.apiKey, '/multi-a');
  const hookB = await subscribe(m.shopId, m.apiKey, '/multi-b');
  const events = 30;
  const ids = await h.db.transaction(async (em) => {
    const out: string[] = [];
    for (let i = 0; i < events; i++)
      out.push(await emitEvent(em, { shopId: m.shopId, type: 'order.completed', data: { n: i }, now: h.clock.now() }));
    return out;
  });
  const other = await secondProcess(0);
  try {
    const a = h.app.services.webhooks;
    const b = other.app.services.webhooks;
    for (let round = 0; round < 20; round++) {
      const reports = await Promise.all([a.dispatchOnce(), b.dispatchOnce(), a.dispatchOnce(), b.dispatchOnce()]);
      if (reports.every((r) => r.events === 0 && r.attempted === 0)) break;
    }
    const mine = rx.received.filter((r) => r.path === '/multi-a' || r.path === '/multi-b');
    assert.equal(mine.length, events * 2);
    const pairs = new Set(mine.map((r) => `${r.path} ${String(r.headers['webhook-id'])}`));
    assert.equal(pairs.size, events * 2, 'no (event, subscription) pair was sent twice');
    assert.deepEqual(new Set(mine.map((r) => r.headers['webhook-id'])), new Set(ids));
    for (const r of mine) {
      const secret = r.path === '/multi-a' ? hookA.secret : hookB.secret;
      assert.ok(verifyStandardWebhook(secret, r.headers, r.body, Math.floor(h.clock.now().getTime() / 1000)));
    }
    const log = await restClient(h.url, m.apiKey).get(`/v1/integration/webhooks/${hookA.id}/deliveries?limit=100`);
    assert.equal(log.body.deliveries.length, events);
    assert.ok(
      log.body.deliveries.every(
        (d: { status: string; attempts: number }) => d.status === 'delivered' && d.attempts === 1,
      ),
    );

    // A process that fanned out but died before marking its events leaves them to be fanned out again: no duplicates.
    await h.db.execute(
      `update webhook_events set dispatched_at = null where id in (${ids.map(() => '?').join(', ')})`,
      ids,
    );
    const again = await b.fanOut();
    assert.equal(again.events, events);
    assert.equal(again.deliveriesCreated, 0);
    await a.dispatchOnce();
    assert.equal(rx.received.filter((r) => r.path === '/multi-a' || r.path === '/multi-b').length, events * 2);
  } finally {
    await other.close();
  }
});

test('the app runs the dispatcher loop in the background and app.close() stops it', async () => {
  const m = await h.merchant();
  const hook = await subscribe(m.shopId, m.apiKey, '/loop');
  const looping = await secondProcess(20);
  try {
    const before = rx.received.length;
    await h.db.transaction((em) =>
      emitEvent(em, { shopId: m.shopId, type: 'order.completed', data: { loop: true }, now: h.clock.now() }),
    );
    const received = await rx.waitFor(before + 1);
    const msg = received.find((r) => r.path === '/loop');
    assert.ok(msg, 'the loop delivered the event without an explicit dispatch');
    assert.ok(verifyStandardWebhook(hook.secret, msg.headers, msg.body, Math.floor(h.clock.now().getTime() / 1000)));
  } finally {
    await looping.close();
  }
});
