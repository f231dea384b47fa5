/** The real MCP inspector CLI against `tessera mcp` over stdio and against `/mcp` over Streamable HTTP. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHarness, type Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import { serverEnvFor } from '../support/database.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const INSPECTOR = join(ROOT, 'node_modules', '.bin', 'mcp-inspector');
/** Node 24 first on PATH: the inspector's shebang and the stdio server's `node` must both find it. */
const PATH = `${dirname(process.execPath)}:${process.env.PATH ?? ''}`;
/**
 * Our own bound on one inspector run; the inspector's own connect timeout (15 s) is turned off, since starting `tessera
 * mcp` on a busy machine can take longer.
 */
const TIMEOUT_MS = 240_000;

let h: Harness;
let m: Awaited<ReturnType<Harness['merchant']>>;
let poolId: string;
before(async () => {
  h = await startHarness();
  m = await h.merchant();
  const pool = await restClient(h.url, m.apiKey).post('/v1/integration/pools', {
    merchantId: m.shopId,
    capacity: 12,
    title: 'Stalls',
  });
  assert.equal(pool.status, 201);
  poolId = pool.body.id;
});
after(async () => {
  await h?.close();
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `mcp-inspector --cli ...args` in its own process group; on timeout the whole group is killed. */
function inspector(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(INSPECTOR, ['--cli', '--connect-timeout', '0', ...args], {
      cwd: ROOT,
      env: { ...process.env, PATH },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
      reject(new Error(`mcp-inspector timed out after ${TIMEOUT_MS} ms\n${stderr}`));
    }, TIMEOUT_MS);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The `{"result": ...}` line `--format json` prints on success. */
function resultOf(run: Run): any {
  assert.equal(run.code, 0, `inspector exited ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  return JSON.parse(run.stdout.trim()).result;
}

/** Inspector arguments that launch `node src/cli.ts mcp` over stdio as the merchant's API key. */
function stdioTarget(token: string): { env: string[]; command: string[] } {
  const env = { TESSERA_TOKEN: token, ...serverEnvFor(h.dbUrl), LOG_LEVEL: 'warn', PATH };
  return {
    env: Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    command: ['--', 'node', join(ROOT, 'src', 'cli.ts'), 'mcp'],
  };
}

test('the inspector CLI lists tools and calls list_pools over stdio', async () => {
  const t = stdioTarget(m.apiKey);
  const listed = resultOf(await inspector([...t.env, '--format', 'json', '--method', 'tools/list', ...t.command]));
  assert.deepEqual(
    listed.tools.map((x: { name: string }) => x.name),
    (await h.app.orchestrator.toolsFor(m.apiKey)).tools.map((x) => x.name),
  );
  const args = JSON.stringify({ merchantId: m.shopId });
  const called = resultOf(
    await inspector([
      ...t.env,
      '--format',
      'json',
      '--method',
      'tools/call',
      '--tool-name',
      'list_pools',
      '--tool-args-json',
      args,
      ...t.command,
    ]),
  );
  assert.equal(called.isError, undefined);
  assert.deepEqual(
    called.structuredContent.pools.map((p: { id: string }) => p.id),
    [poolId],
  );
});

test('the inspector CLI calls list_pools over Streamable HTTP with a bearer header', async () => {
  const target = ['--transport', 'http', '--server-url', `${h.url}/mcp`, '--stored-auth-only', '--format', 'json'];
  const auth = ['--header', `Authorization: Bearer ${m.apiKey}`];
  const listed = resultOf(await inspector([...target, '--method', 'tools/list', ...auth]));
  assert.equal(listed.tools.length, (await h.app.orchestrator.toolsFor(m.apiKey)).tools.length);
  const args = JSON.stringify({ merchantId: m.shopId });
  const called = resultOf(
    await inspector([
      ...target,
      '--method',
      'tools/call',
      '--tool-name',
      'list_pools',
      '--tool-args-json',
      args,
      ...auth,
    ]),
  );
  assert.equal(called.structuredContent.pools[0].availableCount, 12);
});

test('the inspector CLI exits 5 on an error result and shows the code', async () => {
  const reader = await h.merchant(['merchant:read']);
  const target = ['--transport', 'http', '--server-url', `${h.url}/mcp`, '--stored-auth-only', '--format', 'json'];
  // Another organization's shop: the tool is listed for this key (so the inspector calls it), the call is refused.
  const args = JSON.stringify({ merchantId: m.shopId });
  const run = await inspector([
    ...target,
    '--method',
    'tools/call',
    '--tool-name',
    'list_pools',
    '--tool-args-json',
    args,
    '--header',
    `Authorization: Bearer ${reader.apiKey}`,
  ]);
  assert.equal(run.code, 5, run.stderr);
  const result = JSON.parse(run.stdout.trim()).result;
  assert.equal(result.isError, true);
  assert.match(result.content[0].text, /^not_found: /);
});

test('the inspector CLI, passing tool arguments only, buys: quote → reserve → confirm, each replayed, one hold and one charge', async () => {
  const api = restClient(h.url, m.apiKey);
  const event = await api.post('/v1/integration/events', {
    merchantId: m.shopId,
    title: 'Gig',
    startsAt: '2031-05-01T19:00:00Z',
  });
  const pool = await api.post('/v1/integration/pools', { merchantId: m.shopId, eventId: event.body.id, capacity: 3 });
  const tier = await api.post('/v1/integration/tiers', {
    eventId: event.body.id,
    poolId: pool.body.id,
    name: 'Floor',
    priceMinor: 2500,
  });
  assert.equal(tier.status, 201, JSON.stringify(tier.body));
  const target = ['--transport', 'http', '--server-url', `${h.url}/mcp`, '--stored-auth-only', '--format', 'json'];
  const auth = ['--header', `Authorization: Bearer ${m.apiKey}`];
  const call = async (tool: string, args: unknown) =>
    resultOf(
      await inspector([
        ...target,
        '--method',
        'tools/call',
        '--tool-name',
        tool,
        '--tool-args-json',
        JSON.stringify(args),
        ...auth,
      ]),
    ).structuredContent;
  const quote = await call('quote', { tierId: tier.body.id, quantity: 2 });
  const held = await call('reserve', { quoteId: quote.quoteId });
  const heldAgain = await call('reserve', { quoteId: quote.quoteId });
  assert.equal(heldAgain.reservation.id, held.reservation.id);
  const paid = await call('confirm', { id: held.reservation.id, paymentMethod: 'pm_sandbox_visa' });
  const paidAgain = await call('confirm', { id: held.reservation.id, paymentMethod: 'pm_sandbox_visa' });
  assert.deepEqual(
    [paid.reservation.state, paidAgain.order.id, paidAgain.payment.id],
    ['completed', paid.order.id, paid.payment.id],
  );
  const [counts] = await h.db.execute<{ holds: number; payments: number; charges: number }>(
    `select (select count(*)::int from reservations where pool_id = ?) as holds,
            (select count(*)::int from payments where reservation_id = ?) as payments,
            (select count(*)::int from sandbox_charges c join payments p on p.id = c.payment_reference where p.reservation_id = ?) as charges`,
    [pool.body.id, held.reservation.id, held.reservation.id],
  );
  assert.deepEqual(counts, { holds: 1, payments: 1, charges: 1 });
});
