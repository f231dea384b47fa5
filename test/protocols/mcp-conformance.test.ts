/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, its `server` mode) against `/mcp`: the
 * scenarios that apply to a stateless, tools-only server. The others, and why they do not apply, are listed in
 * docs/protocols.md ("Conformance").
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHarness, type Harness } from '../support/harness.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const TIMEOUT_MS = 120_000;

/** The server scenarios that apply to Tessera's MCP server (tools only, stateless JSON responses). */
const APPLICABLE_SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'] as const;

let h: Harness;
let cwd: string;
before(async () => {
  h = await startHarness();
  cwd = await mkdtemp(join(tmpdir(), 'tessera-conformance-'));
});
after(async () => {
  await h?.close();
  if (cwd) await rm(cwd, { recursive: true, force: true });
});

function conformance(scenario: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'server', '--url', `${h.url}/mcp`, '--scenario', scenario], {
      cwd,
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', HOME: cwd },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`conformance ${scenario} timed out\n${out}`));
    }, TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

for (const scenario of APPLICABLE_SCENARIOS) {
  test(`MCP conformance server scenario ${scenario} passes`, async () => {
    const { code, out } = await conformance(scenario);
    // eslint-disable-next-line no-control-regex
    const text = out.replace(/\u001b\[[0-9;]*m/g, '');
    const summary = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(text);
    assert.ok(summary, text);
    assert.equal(summary[3], '0', text);
    assert.equal(summary[1], summary[2], text);
    assert.ok(Number(summary[2]) >= 1, text);
    assert.equal(code, 0, text);
  });
}

/** One raw JSON-RPC POST to /mcp, as a conformance checker sends it. */
async function post(body: string): Promise<{ status: number; json: any }> {
  const res = await fetch(`${h.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body,
  });
  return { status: res.status, json: await res.json() };
}

test('a tools/call without a name is JSON-RPC -32602; a batch is refused with -32600; not JSON is -32700', async () => {
  const noName = await post(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { arguments: {} } }));
  assert.deepEqual([noName.json.id, noName.json.error.code], [7, -32602]);
  const unknown = await post(JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'nope', arguments: {} } }));
  assert.deepEqual([unknown.json.id, unknown.json.error.code], [8, -32602]);
  const batch = await post(JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'ping' }, { jsonrpc: '2.0', id: 2, method: 'ping' }]));
  assert.deepEqual([batch.status, batch.json.error.code], [400, -32600]);
  const garbage = await post('{"jsonrpc":');
  assert.deepEqual([garbage.status, garbage.json.error.code], [400, -32700]);
});
