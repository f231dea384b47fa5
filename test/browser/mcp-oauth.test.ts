/**
 * MCP authorization end to end: the SDK's own OAuth client (`@modelcontextprotocol/sdk/client/auth.js`, through
 * StreamableHTTPClientTransport's authProvider) discovers the server from the 401, registers dynamically and
 * authorizes while headless Chromium plays the buyer in the order (magic link from the mail, the shop, the
 * agent's name, a new card typed into the provider's frame or a saved one, limits, and ONE emailed code). The agent
 * then buys within the limits with tool arguments only, is refused beyond them, and after the buyer revokes the
 * permission on the buyer pages its next call is refused.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import {
  merchantShop,
  must,
  saveCard as saveCardOverRest,
  signIn as signInOverRest,
  type MerchantShop,
} from '../support/buyers.ts';
import { restClient } from '../support/rest.ts';
import { callTool } from '../support/mcp.ts';
import { codeIn } from '../support/smtp.ts';
import { englishLeakFinder, TEXT_ATTRIBUTES } from '../support/english-leaks.ts';
import { assertAccessible, axeOn, pageSegments } from '../support/browser.ts';
import { linkIn, newEmail, openFromNav, signIn, reportOnFailure, startWorld, type World } from './flows.ts';
import type { Page } from 'playwright-core';

/** The host's local callback (MCP hosts listen on loopback for the redirect): the URLs it was opened with. */
let REDIRECT = '';
const callbacks: URL[] = [];
let callbackServer: Server;

/**
 * What an MCP host keeps for one server: its registration, the PKCE verifier, the tokens; the browser opens `authUrl`.
 */
class HostAuth implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authUrl: URL | undefined;
  registrations = 0;
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test MCP host',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.registrations++;
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

let w: World;
reportOnFailure(() => ({ browser: w?.browser, h: w?.h }));
let shop: MerchantShop;
before(async () => {
  w = await startWorld();
  shop = await merchantShop(w.h, { priceMinor: 5000, discoverable: true });
  w.shopId = shop.shopId;
  callbackServer = createServer((req, res) => {
    callbacks.push(new URL(req.url ?? '/', REDIRECT));
    res.writeHead(200, { 'content-type': 'text/plain' }).end('Back in the host.');
  });
  await new Promise<void>((ok) => callbackServer.listen(0, '127.0.0.1', () => ok()));
  REDIRECT = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`;
});
after(async () => {
  callbackServer?.closeAllConnections();
  await new Promise<void>((ok) => (callbackServer ? callbackServer.close(() => ok()) : ok()));
  await w?.close();
});

async function connect(auth: HostAuth): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', w.h.url), { authProvider: auth });
  const client = new Client({ name: 'oauth-host', version: '0' });
  await client.connect(transport);
  return { client, transport };
}

/** The host's first attempt: 401 → protected-resource metadata → server metadata → registration → authorize URL. */
async function hostStarts(): Promise<{ auth: HostAuth; authUrl: URL }> {
  const auth = new HostAuth();
  await assert.rejects(
    connect(auth),
    (err: Error) => err.name === 'UnauthorizedError' || /Unauthorized/.test(err.message),
  );
  assert.equal(auth.registrations, 1);
  assert.ok(auth.authUrl, 'the client was sent to authorize');
  assert.equal(auth.authUrl.origin + auth.authUrl.pathname, `${w.h.url}/oauth/authorize`);
  assert.equal(auth.authUrl.searchParams.get('code_challenge_method'), 'S256');
  assert.equal(auth.authUrl.searchParams.get('resource'), `${w.h.url}/mcp`);
  return { auth, authUrl: auth.authUrl };
}

/**
 * The buyer in the browser, in the order: e-mail → the magic link → the shop → the agent's name → the card
 * (`newCard`: typed into the provider's frame; else the saved card offered first) → limits → ONE code. Returns the
 * code the host receives.
 */
async function buyerAuthorizes(
  page: Page,
  authUrl: URL,
  email: string,
  card: { newCard: string } | { saved: RegExp },
): Promise<string> {
  // Each call is a new buyer: the buyer-page session an earlier one kept (its cookie) is not theirs.
  await page.context().clearCookies({ name: /^tessera_buyer/ });
  await page.goto(authUrl.href);
  await page.waitForURL(/\/buyer\/authorize\?interaction=/);
  await page.locator('main[data-ready]').waitFor();
  // The buyer sees who asks and where the answer goes.
  await page
    .locator('#authorize-client', {
      hasText: `“Test MCP host” asks to act as your agent. After your answer you return to ${new URL(REDIRECT).origin}.`,
    })
    .waitFor();
  // 1. Sign in by magic link: the e-mail address only, no shop yet.
  await page.getByRole('textbox', { name: 'E-mail address' }).fill(email);
  await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
  await page.locator('#authorize-sent:not([hidden])').waitFor();
  const link = linkIn(w.mail.last(email));
  assert.match(link, /[?&]authorization=/);
  await page.goto(link);
  // The landing page redeems the link and comes back to the authorization (the session is in the page's cookie).
  await page.locator('main[data-page="authorize"] #authorize-shop-step:not([hidden])').waitFor();
  assert.match(page.url(), /\/buyer\/authorize\?interaction=/);
  await assertAccessible(page);
  // 2. The shop, among the discoverable ones.
  await page.getByLabel('Shop', { exact: true }).selectOption(shop.shopId);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.locator('#authorize-grant:not([hidden])').waitFor();
  // 3. The agent's name, the card, the limits.
  await page.getByLabel('Agent name').fill('Desktop assistant');
  const cardSelect = page.getByLabel('Card to charge');
  if ('newCard' in card) {
    assert.equal(await cardSelect.locator('option:checked').innerText(), 'A new card');
    await page.getByRole('button', { name: 'Add a card' }).click();
    const form = page.frameLocator('iframe[title="Card details form from the payment provider"]');
    await form.getByLabel('Card number').fill(card.newCard);
    await assertAccessible(page);
    await form.getByRole('button', { name: 'Use this card' }).click();
    await page.locator('#authorize-card-ready', { hasText: 'Visa ending in 4242 is ready to save.' }).waitFor();
  } else {
    assert.match(await cardSelect.locator('option:checked').innerText(), card.saved);
  }
  await page.getByLabel('Most per purchase (EUR)').fill('60');
  await page.getByLabel('Most in total per period (EUR)').fill('100');
  // 4. ONE emailed code, naming what it authorizes, confirms it all.
  const mails = w.mail.count(email);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.locator('#authorize-code-step:not([hidden])').waitFor();
  assert.equal(w.mail.count(email), mails + 1);
  const mail = w.mail.last(email);
  assert.match(
    mail.text,
    /authorize the agent “Desktop assistant” to buy at .+: up to €60\.00 per purchase and €100\.00 in total per 1 day, until .+, charged to Visa •••• 4242/,
  );
  await page.locator('#authorize-code').fill(codeIn(mail));
  await page.getByRole('button', { name: 'Authorize the agent' }).click();
  // A second authorization in the same browser (the saved-card test runs after the first) returns too.
  await page.getByText('Back in the host.').waitFor();
  assert.equal(w.mail.count(email), mails + 1, 'no second code');
  const callback = callbacks.at(-1);
  assert.ok(callback);
  assert.equal(callback.searchParams.get('state'), authUrl.searchParams.get('state'));
  const code = callback.searchParams.get('code');
  assert.ok(code, `no code in ${callback}`);
  return code;
}

/** The host exchanges the code (PKCE) and connects with its access token. */
async function hostConnects(auth: HostAuth, code: string): Promise<Client> {
  const first = new StreamableHTTPClientTransport(new URL('/mcp', w.h.url), { authProvider: auth });
  await first.finishAuth(code);
  assert.ok(auth.saved?.access_token && auth.saved.refresh_token);
  const { client } = await connect(auth);
  const names = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(names.includes('quote') && names.includes('reserve') && names.includes('confirm'));
  return client;
}

test('a stock MCP OAuth client is authorized by the buyer in the browser (new card in the provider frame, one code), buys within the limits, and stops when revoked', async () => {
  const email = newEmail();
  const { auth, authUrl } = await hostStarts();
  const page = await w.browser.page();
  const code = await buyerAuthorizes(page, authUrl, email, { newCard: '4242 4242 4242 4242' });
  assert.ok(!(await page.content()).includes('4242 4242'), 'no card number in our page');
  const client = await hostConnects(auth, code);

  // Within the limits (60 per purchase): one ticket at 50 is bought with tool arguments only.
  const q = await callTool(client, 'quote', { tierId: shop.tierId, quantity: 1 });
  assert.ok(q.ok, JSON.stringify(q));
  const r = await callTool(client, 'reserve', { quoteId: q.output.quoteId });
  assert.ok(r.ok, JSON.stringify(r));
  const c = await callTool(client, 'confirm', { id: r.output.reservation.id });
  assert.ok(c.ok, JSON.stringify(c));
  // Beyond them: two tickets (100) exceed the per-purchase cap.
  const q2 = await callTool(client, 'quote', { tierId: shop.tierId, quantity: 2 });
  assert.ok(q2.ok, JSON.stringify(q2));
  const r2 = await callTool(client, 'reserve', { quoteId: q2.output.quoteId });
  assert.equal(!r2.ok && r2.code, 'over_purchase_cap');

  // The card typed in the frame was saved with the authorization, for this shop, its cap the per-purchase cap.
  const buyerPage = await w.browser.page();
  await signIn(w, buyerPage, email);
  await openFromNav(buyerPage, 'Saved cards', /\/buyer\/cards/);
  assert.match(await buyerPage.getByRole('row', { name: /Visa ending in 4242/ }).innerText(), /€60\.00/);

  // The buyer revokes the permission on the buyer pages: the next call is refused.
  await openFromNav(buyerPage, 'Permissions', /\/buyer\/permissions/);
  const item = buyerPage.getByRole('article', { name: 'Desktop assistant' });
  await item.getByRole('button', { name: 'Revoke the permission of Desktop assistant' }).click();
  await buyerPage
    .getByRole('dialog', { name: 'Revoke the permission of Desktop assistant?' })
    .getByRole('button', { name: 'Revoke' })
    .click();
  await buyerPage.locator('#status', { hasText: 'The permission of Desktop assistant was revoked.' }).waitFor();
  // The call is answered 401; the client's refresh is refused too (invalid_grant), so it cannot get back in.
  await assert.rejects(callTool(client, 'quote', { tierId: shop.tierId, quantity: 1 }), (err: Error) =>
    /InvalidGrant|Unauthorized/.test(`${err.name} ${err.constructor.name}`),
  );
  await client.close();
  assert.deepEqual(w.browser.problems, []);
});

test('a buyer with a card saved at the shop picks it during the authorization, and the permission charges it', async () => {
  const email = newEmail();
  // The buyer saved a card at this shop on an earlier visit.
  const earlier = await signInOverRest({ h: w.h, box: w.mail, close: async () => undefined }, email, shop.shopId);
  const saved = await saveCardOverRest(
    { h: w.h, box: w.mail, close: async () => undefined },
    earlier,
    email,
    'pm_sandbox_visa',
    100_000,
  );
  const { auth, authUrl } = await hostStarts();
  const page = await w.browser.page();
  const code = await buyerAuthorizes(page, authUrl, email, { saved: /Visa ending in 4242 \(€1,000\.00\)/ });
  const client = await hostConnects(auth, code);
  const q = await callTool(client, 'quote', { tierId: shop.tierId, quantity: 1 });
  assert.ok(q.ok, JSON.stringify(q));
  await client.close();
  // No new card; the new permission charges the saved one.
  const { instruments } = must(await restClient(w.h.url, earlier).get('/v1/buyer/instruments'), 200);
  assert.deepEqual(
    instruments.map((i: { id: string }) => i.id),
    [saved.id],
  );
  const { permissions } = must(await restClient(w.h.url, earlier).get('/v1/buyer/permissions'), 200);
  assert.equal(permissions.length, 1);
  assert.deepEqual(
    [permissions[0].agentName, permissions[0].instrumentId, permissions[0].perPurchaseCapMinor, permissions[0].status],
    ['Desktop assistant', saved.id, 6000, 'active'],
  );
  assert.deepEqual(w.browser.problems, []);
});

/** English messages and serious or critical axe-core violations on the page as it is now. */
async function problemsIn(page: Page, lang: string, step: string): Promise<string[]> {
  const leaks = englishLeakFinder(lang)
    .find(await pageSegments(page, TEXT_ATTRIBUTES))
    .map((l) => `${step}: English ${l}`);
  const axe = await axeOn(page).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const violations = axe.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${step}: axe ${v.id}`);
  return [...leaks, ...violations];
}

test('the authorize step in German: every step, the script’s own text included, is German and passes axe', async () => {
  const email = newEmail();
  const { auth, authUrl } = await hostStarts();
  authUrl.searchParams.set('ui_locales', 'de');
  const page = await w.browser.page();
  await page.context().clearCookies({ name: /^tessera_buyer/ }); // a new buyer: not the one an earlier test kept
  await page.goto(authUrl.href);
  await page.locator('main[data-ready] #authorize-client:not([hidden])').waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'de');
  const problems = await problemsIn(page, 'de', 'sign-in');
  await page.locator('#authorize-email').fill(email);
  await page.locator('#authorize-sign-in-form button[type="submit"]').click();
  await page.locator('#authorize-sent:not([hidden])').waitFor();
  await page.goto(linkIn(w.mail.last(email)));
  await page.locator('main[data-page="authorize"][data-lang="de"] #authorize-shop-step:not([hidden])').waitFor();
  problems.push(...(await problemsIn(page, 'de', 'shop')));
  await page.locator('#authorize-shop').selectOption(shop.shopId);
  await page.locator('#authorize-shop-form button[type="submit"]').click();
  await page.locator('#authorize-new-card:not([hidden])').waitFor();
  await page.locator('#authorize-agent-name').fill('Konzerthelfer');
  await page.locator('#authorize-start-card').click();
  const form = page.frameLocator('#authorize-card-frame iframe');
  await form.getByLabel('Card number').fill('4242 4242 4242 4242');
  problems.push(...(await problemsIn(page, 'de', 'card form')));
  await form.getByRole('button', { name: 'Use this card' }).click();
  await page.locator('#authorize-card-ready:not([hidden])').waitFor();
  await page.locator('#authorize-per-purchase').fill('60');
  await page.locator('#authorize-allowance').fill('100');
  await page.locator('#authorize-submit').click();
  await page.locator('#authorize-code-step:not([hidden])').waitFor();
  const mail = w.mail.last(email);
  assert.match(
    mail.text,
    /den Agenten „Konzerthelfer“ für Käufe bei .+ zu autorisieren \(bis zu 60,00\s€ pro Kauf, insgesamt 100,00\s€ je 1 Tag, bis .+, Zahlung mit Visa •••• 4242\)/,
  );
  problems.push(...(await problemsIn(page, 'de', 'code')));
  await page.locator('#authorize-code').fill(codeIn(mail));
  await page.locator('#authorize-submit').click();
  await page.getByText('Back in the host.').waitFor();
  assert.deepEqual(problems, []);
  const code = callbacks.at(-1)?.searchParams.get('code');
  assert.ok(code);
  await (await hostConnects(auth, code)).close();
  assert.deepEqual(w.browser.problems, []);
});
