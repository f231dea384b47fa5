/**
 * The MCP conformance suite's authorization-server scenarios (`mcp-conformance-next`, 0.2.0-alpha.12: `conformance
 * authorization`) against the OAuth server: its metadata, and a whole authorization-code grant with PKCE, the buyer's
 * part played over HTTP as in test/oauth/oauth-server.test.ts.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buyerWithAgent, merchantShop, must, startWorld, type MerchantShop, type World } from '../support/buyers.ts';
import { authorization, Browser, codeFor, completeInteraction, openInteraction, registerClient } from './support.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = join(ROOT, 'node_modules', 'mcp-conformance-next', 'dist', 'index.js');
const TIMEOUT_MS = 120_000;

let w: World;
let shop: MerchantShop;
let cwd: string;
before(async () => {
  w = await startWorld();
  shop = await merchantShop(w.h, { priceMinor: 5000, discoverable: true });
  cwd = await mkdtemp(join(tmpdir(), 'tessera-oauth-conformance-'));
});
after(async () => {
  await w?.close();
  if (cwd) await rm(cwd, { recursive: true, force: true });
});

/** A loopback port free right now, for the CLI's callback server. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * Runs `conformance authorization` (both scenarios: the code grant reads the metadata scenario's result, so it cannot
 * run alone). When the CLI prints its authorization URL, `onAuthorizeUrl` plays the browser.
 */
function runAuthorization(args: string[], onAuthorizeUrl: (url: string) => Promise<void>) {
  return new Promise<{ code: number | null; out: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'authorization', '--url', w.h.url, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', HOME: cwd },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let played: Promise<void> | undefined;
    const read = (d: string) => {
      out += d;
      const url = /^(http:\/\/\S+\/oauth\/authorize\?\S+)$/m.exec(out)?.[1];
      if (url && !played) played = onAuthorizeUrl(url);
    };
    child.stdout.setEncoding('utf8').on('data', read);
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`conformance authorization timed out\n${out}`));
    }, TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      // eslint-disable-next-line no-control-regex
      const plain = out.replace(/\u001b\[[0-9;]*m/g, '');
      (played ?? Promise.resolve()).then(() => resolve({ code, out: plain }), reject);
    });
  });
}

test('MCP conformance authorization scenarios: the metadata and an authorization-code grant pass', async () => {
  const port = await freePort();
  const client = must(
    {
      ...(await registerClient(w.h.url, { redirect_uris: [`http://127.0.0.1:${port}/callback`] })),
      headers: new Headers(),
    },
    201,
  );
  const buyer = await buyerWithAgent(w, shop, { perPurchaseCapMinor: 10_000, allowanceMinor: 15_000 });
  const args = ['--client-id', client.client_id, '--resource', `${w.h.url}/mcp`, '--port', String(port)];
  const { code, out } = await runAuthorization(args, async (url) => {
    // The buyer's part: the authorize step with the one e-mailed code, then back to the CLI's callback.
    const browser = new Browser(w.h.url);
    const uid = await openInteraction(browser, url);
    const details = authorization(w, buyer);
    const done = await completeInteraction(browser, uid, buyer.session, {
      ...details,
      ...(await codeFor(w, buyer, details)),
    });
    const { redirectTo } = (await done.json()) as { redirectTo: string };
    const back = await browser.follow(redirectTo);
    assert.equal(back.url.origin + back.url.pathname, `http://127.0.0.1:${port}/callback`);
    assert.equal((await fetch(back.url)).status, 200);
  });
  // Two checks: the metadata, and client_id_metadata_document_supported (a warning without it).
  assert.match(out, /✓ authorization-server-metadata-endpoint: 2 passed, 0 failed\n/, out);
  assert.match(out, /✓ authorization-code-grant: 1 passed, 0 failed\n/, out);
  assert.equal(code, 0, out);
});
