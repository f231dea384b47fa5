/**
 * A partner's page on an origin of its own (`http://localhost:<port>`, a different site from the service's
 * 127.0.0.1), loading the BUILT SDK browser bundle: what a merchant's site does to embed the consent view.
 *
 * The page exposes, for tests to drive with `page.evaluate`:
 * - `window.tessera`: the `@tessera/sdk/browser` module;
 * - `window.partner.open(options)`: `openConsent({ container: #consent, ...options })`, recording every SDK event in
 *   `window.partner.events` (`{ type, ...payload }`); `window.partner.view` is the handle;
 * - `window.partner.messages`: every message the window received (`{ origin, data }`), seen by a listener of the page's
 *   own that runs before the SDK's: once a message is in it, the SDK has handled it too.
 * The `#open` button calls `window.partner.open(window.partner.pending)` from a click (popups need one).
 * With `clientBundle`, the built REST client is served too, at `/sdk/index.mjs` (`await import('/sdk/index.mjs')`).
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';

export interface PartnerPage {
  /** `http://localhost:<port>`: list it in the shop's embed origins. */
  origin: string;
  /** The page's URL. */
  url: string;
  close(): Promise<void>;
}

/** An SDK event as the page recorded it. */
export type RecordedEvent = { type: string } & Record<string, unknown>;

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Partner shop</title>
<script type="module" src="/partner.mjs"></script></head>
<body><main><h1>Partner shop</h1><button id="open" type="button">Set up your agent</button><div id="consent"></div></main></body></html>`;

const SCRIPT = `import * as tessera from '/sdk/browser.mjs';
const partner = { events: [], messages: [], view: null, pending: null };
window.addEventListener('message', (event) => partner.messages.push({ origin: event.origin, data: event.data }));
partner.open = (options) => {
  partner.view = tessera.openConsent({ container: document.getElementById('consent'), ...options });
  for (const type of ['ready', 'resize', 'completed', 'cancelled', 'error']) {
    partner.view.on(type, (event) => partner.events.push({ type, ...event }));
  }
  return true;
};
document.getElementById('open').addEventListener('click', () => partner.open(partner.pending));
window.tessera = tessera;
window.partner = partner;
document.querySelector('main').dataset.ready = 'true';
`;

/** Serves the partner page with the built browser bundle (`dist/browser.mjs` of a build) on localhost, port 0. */
export async function servePartnerPage(browserBundle: string, clientBundle?: string): Promise<PartnerPage> {
  const bundle = readFileSync(browserBundle);
  const client = clientBundle ? readFileSync(clientBundle) : undefined;
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const files: Record<string, string | Buffer | undefined> = {
      '/': PAGE,
      '/partner.mjs': SCRIPT,
      '/sdk/browser.mjs': bundle,
      '/sdk/index.mjs': client,
    };
    const body = files[path];
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    const type = path === '/' ? 'text/html; charset=utf-8' : 'text/javascript; charset=utf-8';
    res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store', connection: 'close' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: `${origin}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Opens the partner page in `page` and waits until its script ran. */
export async function gotoPartner(page: Page, partner: PartnerPage): Promise<void> {
  await page.goto(partner.url);
  await page.locator('main[data-ready]').waitFor();
}

/** The SDK events the partner page recorded so far. */
export function partnerEvents(page: Page): Promise<RecordedEvent[]> {
  return page.evaluate(() => (window as unknown as { partner: { events: RecordedEvent[] } }).partner.events);
}

/** Waits until the partner page recorded an SDK event of `type` (and, when given, matching `match`), and returns it. */
export async function waitForPartnerEvent(
  page: Page,
  type: string,
  match: Record<string, unknown> = {},
): Promise<RecordedEvent> {
  const handle = await page.waitForFunction(
    ([want, fields]) =>
      (window as unknown as { partner: { events: RecordedEvent[] } }).partner.events.find(
        (e) => e.type === want && Object.entries(fields).every(([k, v]) => e[k] === v),
      ),
    [type, match] as const,
  );
  return (await handle.jsonValue()) as RecordedEvent;
}

/** Waits until the partner window received a message whose data matches `match` (from any origin or window). */
export async function waitForPartnerMessage(
  page: Page,
  match: Record<string, unknown>,
): Promise<{ origin: string; data: Record<string, unknown> }> {
  const handle = await page.waitForFunction(
    (fields) =>
      (
        window as unknown as { partner: { messages: { origin: string; data: Record<string, unknown> }[] } }
      ).partner.messages.find(
        (m) => !!m.data && typeof m.data === 'object' && Object.entries(fields).every(([k, v]) => m.data[k] === v),
      ),
    match,
  );
  return (await handle.jsonValue()) as { origin: string; data: Record<string, unknown> };
}
