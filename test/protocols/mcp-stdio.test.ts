/** `tessera mcp` over a raw pipe: stdout carries JSON-RPC only, and closing stdin still answers calls already sent. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHarness, type Harness } from '../support/harness.ts';
import { serverEnvFor } from '../support/database.ts';
import { verifies } from '../support/requirements.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TIMEOUT_MS = 120_000;

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  await h?.close();
});

/** Runs `node src/cli.ts mcp ...args`, writes `lines` to its stdin, closes stdin and collects the output. */
function runStdio(
  args: string[],
  env: Record<string, string>,
  lines: unknown[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'src', 'cli.ts'), 'mcp', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...serverEnvFor(h.dbUrl), LOG_LEVEL: 'info', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tessera mcp timed out\n${stderr}`));
    }, TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  });
}

test(`${verifies('CONTRACT-mcp-transports')}tessera mcp --token answers a call sent just before stdin closes, with only JSON-RPC on stdout`, async () => {
  const m = await h.merchant();
  const run = await runStdio(['--token', m.apiKey], {}, [
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '0' } },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'list_pools', arguments: { merchantId: m.shopId } },
    },
  ]);
  assert.equal(run.code, 0, run.stderr);
  const messages = run.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    messages.map((x) => x.id),
    [1, 2],
  );
  assert.deepEqual(messages[1].result.structuredContent, { pools: [] });
  assert.match(run.stderr, /MCP server on stdio/);
});

test('tessera mcp answers a line that is not JSON with -32700, and a batch or a non-message with -32600, then goes on', async () => {
  const m = await h.merchant();
  const child = spawn(process.execPath, [join(ROOT, 'src', 'cli.ts'), 'mcp', '--token', m.apiKey], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...serverEnvFor(h.dbUrl), LOG_LEVEL: 'warn' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  const lines = [
    '{"jsonrpc":"2.0","id":1,"method":"tools/list"',
    JSON.stringify([{ jsonrpc: '2.0', id: 2, method: 'tools/list' }]),
    JSON.stringify({ foo: 1, id: 3 }),
    JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'ping' }),
  ];
  child.stdin.end(lines.map((l) => `${l}\n`).join(''));
  assert.equal(await closed, 0);
  const answers = stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    answers.map((a) => [a.id, a.error?.code ?? 'ok']),
    [
      [null, -32700],
      [null, -32600],
      [3, -32600],
      [4, 'ok'],
    ],
  );
});

test('tessera mcp whose client closes its stdout early (EPIPE) ends cleanly instead of crashing', async () => {
  const m = await h.merchant();
  const child = spawn(process.execPath, [join(ROOT, 'src', 'cli.ts'), 'mcp', '--token', m.apiKey], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...serverEnvFor(h.dbUrl), LOG_LEVEL: 'info' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  child.stdout.destroy(); // the client is gone before any answer: every write of the server's is EPIPE
  const list = (id: number) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' })}\n`;
  child.stdin.write(Array.from({ length: 20 }, (_, i) => list(i + 1)).join(''));
  // stdin stays open: the server must notice the client left from its stdout alone.
  const code = await closed;
  child.stdin.destroy();
  assert.equal(code, 0, stderr);
  assert.doesNotMatch(stderr, /EPIPE|Unhandled|Error:/);
});
