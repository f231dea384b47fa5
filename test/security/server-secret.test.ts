/**
 * The server secret at rest (issue #10, finding 8): the database holds no signing or sealing key, only a fingerprint.
 * Without TESSERA_SECRET the secret lives in a key file (0600) outside the database, created once; a server with
 * another secret refuses to start, saying why; a clear secret an earlier version kept in `settings` is moved out.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { SignJWT } from 'jose';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/kernel/config.ts';
import { ServerSecretError } from '../../src/kernel/server-secret.ts';
import { sessionKey } from '../../src/kernel/tokens.ts';
import { SecretBox } from '../../src/webhooks/secret-box.ts';
import { emitEvent } from '../../src/webhooks/outbox.ts';
import { openTestDatabase, serverEnvFor } from '../support/database.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';
import { verifyStandardWebhook } from '../support/webhook-verify.ts';

let h: Harness;
let rx: Receiver;
const dirs: string[] = [];
before(async () => {
  h = await startHarness({ WEBHOOK_DISPATCH_MS: '0', WEBHOOK_ALLOW_LOOPBACK: 'true' });
  rx = await startReceiver();
});
after(async () => {
  await h?.close();
  await rx?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const silent = pino({ level: 'silent' });
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'tessera-secret-'));
  dirs.push(d);
  return d;
};
const baseEnv = {
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'silent',
  SWEEP_INTERVAL_MS: '0',
  SANDBOX_DISPATCH_MS: '0',
  WEBHOOK_DISPATCH_MS: '0',
} as const;

/**
 * A console token for the owner of `m`, signed as a forger would with `candidate` (raw, and as the server derives its
 * key).
 */
async function forgedConsoleTokens(
  m: { ownerId: string; organizationId: string },
  candidate: string,
): Promise<string[]> {
  const claims = { typ: 'console', org: m.organizationId, role: 'owner' };
  const now = Math.floor(h.clock.now().getTime() / 1000);
  const sign = (key: Uint8Array) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(m.ownerId)
      .setIssuer('tessera')
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .sign(key);
  return [await sign(new TextEncoder().encode(candidate)), await sign(sessionKey(candidate))];
}

/** Every row of every table of the database, as text. */
async function everyRow(db: Harness['db']): Promise<string> {
  const tables = await db.execute<{ name: string }>(
    `select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
  );
  const parts = await Promise.all(
    tables.map(async (t) => JSON.stringify(await db.execute(`select * from "${t.name}"`))),
  );
  return parts.join('\n');
}

test('the database holds no signing key: nothing found in it signs a session, the secret is in the 0600 key file', async () => {
  const m = await h.merchant();
  // A real console token works (the baseline the forgeries are compared with).
  const real = await h.app.authenticator.sign(
    { typ: 'console', sub: m.ownerId, org: m.organizationId, role: 'owner' },
    3600,
  );
  assert.equal((await restClient(h.url, real).get('/v1/console/api-keys')).status, 200);

  const settings = await h.db.execute<{ key: string; value: string }>('select key, value from settings');
  assert.deepEqual(
    settings.map((s) => s.key).filter((k) => /secret/.test(k)),
    ['secret_fingerprint'],
  );
  for (const s of settings) {
    for (const forged of await forgedConsoleTokens(m, s.value)) {
      const res = await restClient(h.url, forged).get('/v1/console/api-keys');
      assert.equal(res.status, 401, `a token signed with settings.${s.key} was accepted`);
    }
  }
  const file = h.app.config.secretFile;
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const secret = readFileSync(file, 'utf8').trim();
  assert.ok(secret.length >= 32);
  const dump = await everyRow(h.db);
  assert.equal(dump.includes(secret), false, 'the server secret is in the database');
  assert.equal(
    dump.includes(Buffer.from(sessionKey(secret)).toString('base64url')),
    false,
    'the session key is in the database',
  );
  // …and the file's secret is the real one: what it signs is accepted.
  const [, fromFile] = await forgedConsoleTokens(m, secret);
  assert.equal((await restClient(h.url, fromFile!).get('/v1/console/api-keys')).status, 200);
});

test('after a restart on the same database and key file, sealed webhook secrets open and sessions stay valid', async () => {
  const m = await h.merchant();
  const api = restClient(h.url, m.apiKey);
  const hook = await api.post('/v1/integration/webhooks', {
    merchantId: m.shopId,
    url: `${rx.url}/restart`,
    events: ['order.completed'],
  });
  assert.equal(hook.status, 201);
  const token = await h.app.authenticator.sign(
    { typ: 'console', sub: m.ownerId, org: m.organizationId, role: 'owner' },
    3600,
  );
  const again = await createApp(
    loadConfig({ ...baseEnv, ...serverEnvFor(h.dbUrl), WEBHOOK_ALLOW_LOOPBACK: 'true' }),
    h.db,
    { clock: h.clock, log: silent },
  );
  try {
    const url = await again.listen();
    assert.equal((await restClient(url, token).get('/v1/console/api-keys')).status, 200);
    await h.db.transaction((em) =>
      emitEvent(em, {
        shopId: m.shopId,
        type: 'order.completed',
        data: { orderId: 'ord_restart' },
        now: h.clock.now(),
      }),
    );
    await again.services.webhooks.dispatchOnce();
    const [msg] = rx.received.filter((r) => r.path === '/restart');
    assert.ok(msg, 'the event was delivered by the restarted server');
    assert.equal(
      verifyStandardWebhook(hook.body.secret, msg.headers, msg.body, Math.floor(h.clock.now().getTime() / 1000)),
      true,
    );
  } finally {
    await again.close();
  }
});

test('a server with another secret refuses to start, saying so (TESSERA_SECRET or another key file)', async () => {
  const other = join(tempDir(), 'server-secret');
  for (const env of [{ TESSERA_SECRET: 'another-secret-of-at-least-32-characters!' }, { TESSERA_SECRET_FILE: other }]) {
    await assert.rejects(
      createApp(loadConfig({ ...baseEnv, DATABASE_URL: h.dbUrl, ...env }), h.db, { clock: h.clock, log: silent }),
      (err: Error) =>
        err instanceof ServerSecretError &&
        /not the one this database was used with/.test(err.message) &&
        !err.message.includes(readFileSync(h.app.config.secretFile, 'utf8').trim()),
    );
  }
  // The refusal changed nothing: the first server still answers.
  assert.equal((await restClient(h.url).get('/healthz')).status, 200);
});

test('a clear secret left in the database by an earlier version is moved to the key file and deleted from the database', async () => {
  const { db, url } = await openTestDatabase();
  const legacy = 'legacy-generated-secret-0123456789abcdefghij';
  try {
    await db.execute(
      `insert into settings (key, value) values ('session_secret', ?), ('sandbox_webhook_secret', 'legacy-sandbox-webhook-secret')`,
      [legacy],
    );
    // Something sealed with the legacy secret before the upgrade.
    const sealed = new SecretBox(legacy).seal('whsec_before_upgrade', 'whk_legacy');
    const file = join(tempDir(), 'keys', 'server-secret');
    const app = await createApp(loadConfig({ ...baseEnv, DATABASE_URL: url, TESSERA_SECRET_FILE: file }), db, {
      log: silent,
    });
    await app.close();
    assert.equal(readFileSync(file, 'utf8').trim(), legacy);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const keys = (await db.execute<{ key: string }>('select key from settings order by key')).map((r) => r.key);
    assert.equal(keys.includes('session_secret'), false);
    assert.equal(keys.includes('sandbox_webhook_secret'), false);
    assert.ok(keys.includes('secret_fingerprint'));
    assert.equal((await everyRow(db)).includes(legacy), false);
    assert.equal(new SecretBox(readFileSync(file, 'utf8').trim()).open(sealed, 'whk_legacy'), 'whsec_before_upgrade');
    // Started again from the file alone, it agrees with the fingerprint; TESSERA_SECRET set to the moved secret does
    // too.
    await (
      await createApp(loadConfig({ ...baseEnv, DATABASE_URL: url, TESSERA_SECRET_FILE: file }), db, { log: silent })
    ).close();
    await (
      await createApp(loadConfig({ ...baseEnv, DATABASE_URL: url, TESSERA_SECRET: legacy }), db, { log: silent })
    ).close();
  } finally {
    await db.close();
  }
});

test('with a clear secret still in the database, a different TESSERA_SECRET refuses to start and keeps it', async () => {
  const { db, url } = await openTestDatabase();
  try {
    await db.execute(
      `insert into settings (key, value) values ('session_secret', 'legacy-generated-secret-abcdefghij0123456789')`,
    );
    await assert.rejects(
      createApp(
        loadConfig({ ...baseEnv, DATABASE_URL: url, TESSERA_SECRET: 'another-secret-of-at-least-32-characters!' }),
        db,
        { log: silent },
      ),
      (err: Error) => err instanceof ServerSecretError && /Start once without TESSERA_SECRET/.test(err.message),
    );
    assert.equal((await db.execute('select 1 from settings where key = ?', ['session_secret'])).length, 1);
  } finally {
    await db.close();
  }
});
