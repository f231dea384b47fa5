/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, its `server` mode) against `/mcp`: the
 * scenarios that apply to a stateless, tools-only server, with 0.1.16 (npm's `latest`) and with the newest release,
 * 0.2.0-alpha.12 (`mcp-conformance-next`), whose whole 2025-11-25 requirement set runs against a baseline of the
 * scenarios that do not apply. Those, and why, are listed in docs/protocols.md ("Conformance").
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHarness, type Harness } from '../support/harness.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const CLI_NEXT = join(ROOT, 'node_modules', 'mcp-conformance-next', 'dist', 'index.js');
const EXPECTED_FAILURES = join(ROOT, 'test', 'protocols', 'mcp-conformance-expected-failures.yaml');
const TIMEOUT_MS = 120_000;

/** The server scenarios that apply to Tessera's MCP server (tools only, stateless JSON responses). */
const APPLICABLE_SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'] as const;
/** Of the newest release's 2025-11-25 requirement set, the ones that apply (the others are its expected failures). */
const APPLICABLE_NEXT = [...APPLICABLE_SCENARIOS, 'prompts-list'] as const;

let h: Harness;
let cwd: string;
let proxy: Server;
let proxyUrl: string;

/**
 * `/mcp` is a protected resource (401 without a bearer) and the conformance CLI sends no credential, so it runs
 * through this pass-through that adds an API key, as an authorized client would. Host and Origin naming the proxy
 * are rewritten to the server's, any other (the DNS-rebinding scenario's) is passed on unchanged.
 */
async function startAuthProxy(target: string, apiKey: string): Promise<void> {
  const to = new URL(target);
  proxy = createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${apiKey}` };
    const self = req.socket.localPort;
    if (headers.host === `127.0.0.1:${self}` || headers.host === `localhost:${self}`) headers.host = to.host;
    if (headers.origin === `http://127.0.0.1:${self}` || headers.origin === `http://localhost:${self}`)
      headers.origin = to.origin;
    const out = request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((ok) => proxy.listen(0, '127.0.0.1', () => ok()));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}

before(async () => {
  h = await startHarness();
  cwd = await mkdtemp(join(tmpdir(), 'tessera-conformance-'));
  await startAuthProxy(h.url, (await h.merchant()).apiKey);
});
after(async () => {
  proxy?.closeAllConnections();
  await new Promise<void>((ok) => (proxy ? proxy.close(() => ok()) : ok()));
  await h?.close();
  if (cwd) await rm(cwd, { recursive: true, force: true });
});

/** Runs a conformance CLI (`cli`) in server mode against `/mcp` with `args`; its exit code and plain output. */
function conformance(args: string[], cli = CLI): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'server', '--url', `${proxyUrl}/mcp`, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', HOME: cwd },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`conformance ${args.join(' ')} timed out\n${out}`));
    }, TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      // eslint-disable-next-line no-control-regex
      resolve({ code, out: out.replace(/\u001b\[[0-9;]*m/g, '') });
    });
  });
}

for (const scenario of APPLICABLE_SCENARIOS) {
  test(`MCP conformance server scenario ${scenario} passes`, async () => {
    const { code, out: text } = await conformance(['--scenario', scenario]);
    const summary = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(text);
    assert.ok(summary, text);
    assert.equal(summary[3], '0', text);
    assert.equal(summary[1], summary[2], text);
    assert.ok(Number(summary[2]) >= 1, text);
    assert.equal(code, 0, text);
  });
}

test('MCP conformance 0.2.0-alpha.12: every 2025-11-25 server scenario passes but those listed as not applicable', async () => {
  const { code, out } = await conformance(
    ['--requirements', '2025-11-25', '--expected-failures', EXPECTED_FAILURES],
    CLI_NEXT,
  );
  assert.match(out, /Baseline check passed: all failures are expected/, out);
  assert.equal(code, 0, out);
  for (const scenario of APPLICABLE_NEXT) {
    const line = new RegExp(`^✓ ${scenario}: (\\d+) passed, 0 failed$`, 'm').exec(out);
    assert.ok(line && Number(line[1]) >= 1, `${scenario} did not pass\n${out}`);
  }
});

/** One raw JSON-RPC POST to /mcp, as a conformance checker sends it. */
async function post(body: string): Promise<{ status: number; json: any }> {
  // Through the authorizing pass-through: /mcp answers 401 before reading a body without a valid bearer.
  const res = await fetch(`${proxyUrl}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body,
  });
  return { status: res.status, json: await res.json() };
}

test('a tools/call without a name is JSON-RPC -32602; a batch is refused with -32600; not JSON is -32700', async () => {
  const noName = await post(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { arguments: {} } }));
  assert.deepEqual([noName.json.id, noName.json.error.code], [7, -32602]);
  const unknown = await post(
    JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'nope', arguments: {} } }),
  );
  assert.deepEqual([unknown.json.id, unknown.json.error.code], [8, -32602]);
  const batch = await post(
    JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    ]),
  );
  assert.deepEqual([batch.status, batch.json.error.code], [400, -32600]);
  const garbage = await post('{"jsonrpc":');
  assert.deepEqual([garbage.status, garbage.json.error.code], [400, -32700]);
});
