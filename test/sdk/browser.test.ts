/**
 * The BUILT browser bundle in headless Chromium, on a partner page of its own origin, against stand-ins for the
 * consent view (test/sdk/fake-consent-view.ts): the protocol, and the origin checks in both directions.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startHarness, type Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { restClient } from '../support/rest.ts';
import type { Frame, Page } from 'playwright-core';
import { launchBrowser, WAIT, type TestBrowser } from '../support/browser.ts';
import {
  gotoPartner,
  partnerEvents,
  servePartnerPage,
  waitForPartnerEvent,
  waitForPartnerMessage,
  type PartnerPage,
} from '../support/partner-page.ts';
import { buildSdk, type BuiltSdk } from '../support/built-sdk.ts';
import { startFakeViews, type FakeViews } from './fake-consent-view.ts';

let browser: TestBrowser;
let sdk: BuiltSdk;
let partner: PartnerPage;
let views: FakeViews;
let h: Harness;
before(async () => {
  browser = await launchBrowser();
  h = await startHarness();
  sdk = await buildSdk();
  partner = await servePartnerPage(sdk.browserBundle, sdk.clientBundle);
  views = await startFakeViews();
});
after(async () => {
  await views?.close();
  await partner?.close();
  await browser?.close();
  await h?.close();
  sdk?.remove();
});

const SESSION = 'bst_test_session_token';
const THEME = {
  background: '#101418',
  surface: '#1b2229',
  text: '#f2f4f7',
  accent: '#ffb347',
  font: 'Atkinson Hyperlegible',
};

/** The messages a fake page logged (what it received: origin, whether from its parent/opener, data). */
async function logOf(
  frame: Frame | Page,
): Promise<{ origin: string; fromHost: boolean; data: Record<string, unknown> }[]> {
  const text = (await frame.locator('#log').textContent()) ?? '';
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/** Waits until a fake page logged a message of `type`. */
async function waitForLogged(frame: Frame | Page, type: string): Promise<void> {
  await frame.waitForFunction(
    (want) => (document.getElementById('log')?.textContent ?? '').includes(`"type":"${want}"`),
    type,
    { timeout: WAIT },
  );
}

/** The partner page's consent iframe, once the view in it loaded. */
async function viewFrame(page: Page): Promise<Frame> {
  const element = await page.waitForSelector('#consent iframe');
  const frame = await element.contentFrame();
  assert.ok(frame, 'the iframe has a document');
  await frame.waitForSelector('#log', { state: 'attached' });
  return frame;
}

test('iframe: the view gets the session by postMessage (never in the URL), the iframe follows resize, and the events reach the page', async () => {
  const page = await browser.page();
  try {
    await gotoPartner(page, partner);
    await page.evaluate(
      ([baseUrl, session, theme]) =>
        (window as any).partner.open({ baseUrl, shopId: 'shop_demo', session, mode: 'iframe', theme, lang: 'de' }),
      [views.baseUrl, SESSION, THEME] as const,
    );
    const frame = await viewFrame(page);
    const src = new URL(frame.url());
    assert.equal(src.origin + src.pathname, `${views.baseUrl}/embed/consent`);
    assert.deepEqual(Object.fromEntries([...src.searchParams].filter(([k]) => k !== 'theme')), {
      shop: 'shop_demo',
      origin: partner.origin,
      mode: 'iframe',
      lang: 'de',
    });
    assert.deepEqual(JSON.parse(Buffer.from(src.searchParams.get('theme')!, 'base64url').toString('utf8')), THEME);
    assert.ok(!frame.url().includes(SESSION), 'the session is not in the URL');

    await waitForPartnerEvent(page, 'ready');
    await waitForLogged(frame, 'session');
    const [session] = (await logOf(frame)).filter((m) => m.data.type === 'session');
    assert.deepEqual(session, {
      origin: partner.origin,
      fromHost: true,
      data: { source: 'tessera-consent', version: 1, type: 'session', token: SESSION },
    });

    await waitForPartnerEvent(page, 'resize', { height: 432 });
    await page.waitForFunction(
      () => document.querySelector<HTMLIFrameElement>('#consent iframe')?.style.height === '432px',
    );
    await frame.click('#grow');
    await waitForPartnerEvent(page, 'resize', { height: 640 });
    assert.equal(
      await page.$eval('#consent iframe', (f) => (f as HTMLIFrameElement).getBoundingClientRect().height),
      640,
    );
    assert.equal(
      await page.$eval('#consent iframe', (f) => f.getAttribute('title')),
      'Set up spending authority',
      'the frame has an accessible name',
    );

    await frame.click('#fail');
    assert.deepEqual(await waitForPartnerEvent(page, 'error'), {
      type: 'error',
      code: 'not_found',
      message: 'No such shop.',
    });
    await frame.click('#cancel');
    await waitForPartnerEvent(page, 'cancelled');
    await frame.click('#complete');
    assert.deepEqual(await waitForPartnerEvent(page, 'completed'), { type: 'completed', permissionId: 'perm_fake' });
    assert.deepEqual(
      (await partnerEvents(page)).map((e) => e.type),
      ['ready', 'resize', 'resize', 'error', 'cancelled', 'completed'],
    );

    await page.evaluate(() => (window as any).partner.view.close());
    assert.equal(await page.locator('#consent iframe').count(), 0, 'close() removes the iframe');
    assert.deepEqual(browser.problems, []);
  } finally {
    await page.close();
  }
});

test('messages from the wrong origin or the wrong window are ignored', async () => {
  const page = await browser.page();
  try {
    await gotoPartner(page, partner);
    await page.evaluate(
      ([baseUrl, session]) => (window as any).partner.open({ baseUrl, shopId: 'shop_demo', session, mode: 'iframe' }),
      [views.baseUrl, SESSION] as const,
    );
    await waitForPartnerEvent(page, 'ready');

    // The partner's own origin: a script on the page (or an ad in it) posts a well-formed message.
    await page.evaluate(() =>
      window.postMessage({ source: 'tessera-consent', version: 1, type: 'completed', permissionId: 'perm_self' }, '*'),
    );
    // The view's origin, but another window: a second frame from the service.
    await page.evaluate((url) => {
      const rogue = document.createElement('iframe');
      rogue.title = 'rogue';
      rogue.src = url;
      document.body.append(rogue);
    }, `${views.baseUrl}/rogue`);
    await waitForPartnerMessage(page, { permissionId: 'perm_self' });
    const rogue = await waitForPartnerMessage(page, { permissionId: 'perm_rogue' });
    assert.equal(rogue.origin, views.baseUrl, 'the rogue frame is on the view origin');
    // The page's own listener runs before the SDK's, so the SDK has handled both by now.
    assert.deepEqual(
      (await partnerEvents(page)).map((e) => e.type),
      ['ready', 'resize'],
      'neither counted as the view’s completion',
    );
  } finally {
    await page.close();
  }
});

test('a frame that ends up on another origin gets no session, and its messages are ignored', async () => {
  const page = await browser.page();
  try {
    await gotoPartner(page, partner);
    await page.evaluate(
      ([baseUrl, session]) =>
        (window as any).partner.open({ baseUrl, shopId: 'shop_impostor', session, mode: 'iframe' }),
      [views.baseUrl, SESSION] as const,
    );
    const frame = await viewFrame(page);
    assert.equal(new URL(frame.url()).origin, views.impostorOrigin, 'the view URL redirected to another origin');
    await waitForPartnerMessage(page, { type: 'ready' });
    await waitForPartnerMessage(page, { permissionId: 'perm_impostor' });
    assert.deepEqual(await partnerEvents(page), [], 'neither its ready nor its completion counted');
    // Anything the partner window posted to the frame before this sentinel would be echoed before it.
    await page.evaluate(() =>
      document.querySelector<HTMLIFrameElement>('#consent iframe')!.contentWindow!.postMessage({ sentinel: true }, '*'),
    );
    await page.waitForFunction(() =>
      (window as any).partner.messages.some((m: { data: any }) => m.data?.echo?.sentinel === true),
    );
    const echoed = await page.evaluate(() =>
      (window as any).partner.messages
        .filter((m: { data: any }) => m.data?.echo)
        .map((m: { data: any }) => m.data.echo),
    );
    assert.deepEqual(echoed, [{ sentinel: true }], 'the session was never posted to the impostor');
  } finally {
    await page.close();
  }
});

test('popup: opened from a click, the view in it gets the session and its completion reaches the opener; close() closes it', async () => {
  const page = await browser.page();
  try {
    await gotoPartner(page, partner);
    await page.evaluate(
      ([baseUrl, session]) => {
        (window as any).partner.pending = {
          baseUrl,
          shopId: 'shop_demo',
          session: () => Promise.resolve(session),
          mode: 'popup',
          lang: 'hu',
        };
      },
      [views.baseUrl, SESSION] as const,
    );
    const [popup] = await Promise.all([page.waitForEvent('popup', { timeout: WAIT }), page.click('#open')]);
    await popup.waitForSelector('#log', { state: 'attached' });
    const url = new URL(popup.url());
    assert.deepEqual(
      [url.searchParams.get('mode'), url.searchParams.get('lang'), url.searchParams.get('origin')],
      ['popup', 'hu', partner.origin],
    );
    await waitForLogged(popup, 'session');
    assert.deepEqual(
      (await logOf(popup)).find((m) => m.data.type === 'session'),
      {
        origin: partner.origin,
        fromHost: true,
        data: { source: 'tessera-consent', version: 1, type: 'session', token: SESSION },
      },
    );
    await popup.click('#complete');
    assert.deepEqual(await waitForPartnerEvent(page, 'completed'), { type: 'completed', permissionId: 'perm_fake' });
    const closed = popup.waitForEvent('close', { timeout: WAIT });
    await page.evaluate(() => (window as any).partner.view.close());
    await closed;
  } finally {
    await page.close();
  }
});

test('a session function that fails is reported as an error event', async () => {
  const page = await browser.page();
  try {
    await gotoPartner(page, partner);
    await page.evaluate(
      (baseUrl) =>
        (window as any).partner.open({
          baseUrl,
          shopId: 'shop_demo',
          session: () => Promise.reject(new Error('Your server said no.')),
          mode: 'iframe',
        }),
      views.baseUrl,
    );
    assert.deepEqual(await waitForPartnerEvent(page, 'error'), {
      type: 'error',
      code: 'session_unavailable',
      message: 'Your server said no.',
    });
    const frame = await viewFrame(page);
    assert.deepEqual(
      (await logOf(frame)).filter((m) => m.data.type === 'session'),
      [],
      'no session was posted',
    );
  } finally {
    await page.close();
  }
});

test('the REST client runs in the browser too: quote → reserve → confirm, and a refusal is a TesseraError', async () => {
  const m = await h.merchant();
  const api = restClient(h.url, m.apiKey);
  const startsAt = new Date(h.clock.now().getTime() + 30 * 86_400_000).toISOString();
  const event = (await api.post('/v1/integration/events', { merchantId: m.shopId, title: 'Browser night', startsAt }))
    .body;
  const pool = (await api.post('/v1/integration/pools', { merchantId: m.shopId, eventId: event.id, capacity: 4 })).body;
  const tier = (
    await api.post('/v1/integration/tiers', {
      eventId: event.id,
      poolId: pool.id,
      name: 'Seat',
      priceMinor: 1500,
      maxQtyPerPurchase: 2,
    })
  ).body;
  const page = await browser.page();
  try {
    // A page on the API's own origin (so no CORS is involved), served by the browser from the built bundle.
    const bundle = readFileSync(sdk.clientBundle, 'utf8');
    await page.route(`${h.url}/__sdk/**`, (route) =>
      route.request().url().endsWith('.mjs')
        ? route.fulfill({ contentType: 'text/javascript', body: bundle })
        : route.fulfill({
            contentType: 'text/html',
            body: '<!doctype html><html lang="en"><title>SDK</title><h1>SDK</h1></html>',
          }),
    );
    await page.goto(`${h.url}/__sdk/page.html`);
    const outcome = await page.evaluate(
      async ([key, tierId]) => {
        const { createClient, TesseraError } = await import(`${location.origin}/__sdk/index.mjs`);
        const tessera = createClient({ baseUrl: location.origin, token: key });
        const quote = await tessera.quote({ tierId, quantity: 2 });
        const { reservation } = await tessera.reserve({ quoteId: quote.quoteId });
        const paid = await tessera.send('confirm', { id: reservation.id, paymentMethod: 'pm_sandbox_visa' });
        const refusal = await tessera.quote({ tierId, quantity: 3 }).catch((e: unknown) => e);
        return {
          state: paid.data.reservation.state,
          key: paid.idempotencyKey,
          refusal: { isError: refusal instanceof TesseraError, status: refusal.status, code: refusal.code },
        };
      },
      [m.apiKey, tier.id] as const,
    );
    assert.equal(outcome.state, 'completed');
    assert.match(
      outcome.key,
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      'a UUID v4 idempotency key',
    );
    assert.deepEqual(outcome.refusal, { isError: true, status: 422, code: 'quantity_over_limit' });
    assert.deepEqual(await assertInvariant(h.db, pool.id), { capacity: 4, available: 2, held: 0, sold: 2 });
  } finally {
    await page.close();
  }
});
