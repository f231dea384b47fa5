/**
 * Delegated payment tokens at rest (issue #32): a `vt_…` token was the primary key of `acp_vault_tokens`, in clear,
 * so a database dump could spend it. Only a keyed hash is stored; the token still pays once; tokens stored in clear
 * before are converted by the migration and still pay.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';
import { acpClient, completeBody, createBody, delegateBody, must, shopWithTier } from '../support/acp.ts';

let h: Harness;
before(async () => {
  h = await startHarness({ WEBHOOK_DISPATCH_MS: '0' });
});
after(async () => {
  await h?.close();
});

/** Every row of every table of the database, as text. */
async function everyRow(): Promise<string> {
  const tables = await h.db.execute<{ name: string }>(
    `select table_name as name from information_schema.tables
      where table_schema = 'public' and table_type = 'BASE TABLE'`,
  );
  const rowsOf = async (table: string) => JSON.stringify(await h.db.execute(`select * from "${table}"`));
  const parts = await Promise.all(tables.map((t) => rowsOf(t.name)));
  return parts.join('\n');
}

/** The stored token rows of a checkout session. */
const tokenRows = (sessionId: string) =>
  h.db.execute<{ id: string }>('select id from acp_vault_tokens where checkout_session_id = ?', [sessionId]);

/** A ready checkout session and a token delegated for it (with an idempotency key, as the ACP binding requires). */
async function delegated() {
  const s = await shopWithTier(h);
  const acp = acpClient(h, s.apiKey);
  const session = must(await acp.post('/checkout_sessions', createBody(s.tierId)), 201);
  const allowance = { checkout_session_id: session.id, merchant_id: s.shopId };
  const token = must(await acp.post('/agentic_commerce/delegate_payment', delegateBody(allowance)), 201);
  assert.match(token.id, /^vt_/);
  return { acp, session, token: token.id as string };
}

test('a delegated token is stored only as a keyed hash, and still completes the checkout once', async () => {
  const { acp, session, token } = await delegated();
  const rows = await tokenRows(session.id);
  assert.equal(rows.length, 1);
  assert.match(rows[0]!.id, /^h1:[0-9a-f]{64}$/);
  assert.ok(!(await everyRow()).includes(token), 'no row of any table holds the token');

  const done = must(await acp.post(`/checkout_sessions/${session.id}/complete`, completeBody(token)), 200);
  assert.equal(done.status, 'completed');
  assert.ok(!(await everyRow()).includes(token), 'nor once it paid (the session keeps the hash)');
  const again = await acp.post(`/checkout_sessions/${session.id}/complete`, completeBody(token));
  assert.notEqual(again.status, 200);
  // Another string is still refused as unknown.
  const other = await delegated();
  const wrongPath = `/checkout_sessions/${other.session.id}/complete`;
  const wrong = await other.acp.post(wrongPath, completeBody(`${other.token}x`));
  assert.equal(wrong.body.code, 'delegated_token_invalid', JSON.stringify(wrong.body));
});

test('the migration converts a token stored in clear before it, and that token still pays', async () => {
  const { acp, session, token } = await delegated();
  // As an earlier version stored it: the token itself as the key; then the migration runs as at start-up.
  await h.db.execute('update acp_vault_tokens set id = ? where checkout_session_id = ?', [token, session.id]);
  await h.db.execute(`delete from mikro_orm_migrations where name = '0020-acp-vault-token-hashes'`);
  assert.deepEqual(await h.db.migrate(), ['0020-acp-vault-token-hashes']);
  const [row] = await tokenRows(session.id);
  assert.match(row!.id, /^s256:[0-9a-f]{64}$/);
  assert.ok(!(await everyRow()).includes(token), 'no row of any table holds the token');
  const done = must(await acp.post(`/checkout_sessions/${session.id}/complete`, completeBody(token)), 200);
  assert.equal(done.status, 'completed');
});
