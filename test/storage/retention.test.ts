/**
 * Housekeeping: idempotency keys past 24 hours, spent jtis of long-expired mandates, long-expired OAuth records and
 * page sessions long expired or signed out are pruned, nothing younger.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { pruneExpired } from '../../src/storage/retention.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  await h?.close();
});

const count = async (table: string) =>
  Number((await h.db.execute<{ n: string }>(`select count(*) as n from ${table}`))[0]!.n);

test('old idempotency keys and expired mandate jtis are pruned; a key inside its window still replays', async () => {
  const m = await h.merchant();
  const api = restClient(h.url, m.apiKey);
  const old = await api.post(
    '/v1/integration/pools',
    { merchantId: m.shopId, capacity: 1 },
    { 'idempotency-key': 'old-key' },
  );
  assert.equal(old.status, 201);
  const day = 24 * 3600 * 1000;
  await h.db.execute('update idempotency_keys set created_at = ? where key = ?', [
    new Date(h.clock.now().getTime() - day - 1000),
    'old-key',
  ]);
  const fresh = await api.post(
    '/v1/integration/pools',
    { merchantId: m.shopId, capacity: 2 },
    { 'idempotency-key': 'fresh-key' },
  );
  assert.equal(fresh.status, 201);
  const insertJti = (jti: string, expiresAt: Date) =>
    h.db.execute(
      `insert into mandate_jtis (network, jti, period, mandate_id, merchant_id, used_at, expires_at) values ('testnet', ?, 'once', 'm', ?, ?, ?)`,
      [jti, m.shopId, h.clock.now(), expiresAt],
    );
  await insertJti('long-expired', new Date(h.clock.now().getTime() - 2 * day));
  await insertJti('recently-expired', new Date(h.clock.now().getTime() - 1000));
  const insertOAuth = (id: string, expiresAt: Date) =>
    h.db.execute(`insert into oauth_records (kind, id_hash, payload, expires_at) values ('AccessToken', ?, '{}', ?)`, [
      id,
      expiresAt,
    ]);
  await insertOAuth('long-expired', new Date(h.clock.now().getTime() - 2 * day));
  await insertOAuth('recently-expired', new Date(h.clock.now().getTime() - 1000));
  const insertPageSession = (id: string, expiresAt: Date, endedAt: Date | null) =>
    h.db.execute(
      `insert into web_sessions (id, token_hash, kind, claims, expires_at, ended_at, created_at)
       values (?, ?, 'console', '{}', ?, ?, ?)`,
      [id, `hash-${id}`, expiresAt, endedAt, h.clock.now()],
    );
  await insertPageSession('long-expired', new Date(h.clock.now().getTime() - 2 * day), null);
  await insertPageSession(
    'long-signed-out',
    new Date(h.clock.now().getTime() + day),
    new Date(h.clock.now().getTime() - 2 * day),
  );
  await insertPageSession('live', new Date(h.clock.now().getTime() + day), null);

  assert.deepEqual(await pruneExpired(h.db, h.clock.now()), {
    idempotencyKeys: 1,
    mandateJtis: 1,
    a2aTasks: 0,
    rateLimits: 0,
    consentDrafts: 0,
    oauthRecords: 1,
    webSessions: 2,
  });
  assert.deepEqual(
    (await h.db.execute<{ id: string }>('select id from web_sessions')).map((r) => r.id),
    ['live'],
  );
  assert.equal(await count('idempotency_keys'), 1);
  assert.equal((await h.db.execute('select jti from mandate_jtis'))[0]!.jti, 'recently-expired');
  assert.deepEqual(
    (await h.db.execute<{ id_hash: string }>('select id_hash from oauth_records')).map((r) => r.id_hash),
    ['recently-expired'],
  );
  const replay = await api.post(
    '/v1/integration/pools',
    { merchantId: m.shopId, capacity: 2 },
    { 'idempotency-key': 'fresh-key' },
  );
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(await pruneExpired(h.db, h.clock.now()), {
    idempotencyKeys: 0,
    mandateJtis: 0,
    a2aTasks: 0,
    rateLimits: 0,
    consentDrafts: 0,
    oauthRecords: 0,
    webSessions: 0,
  });
});
