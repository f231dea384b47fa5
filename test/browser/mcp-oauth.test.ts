/**
 * MCP authorization end to end: the SDK's own OAuth client (`@modelcontextprotocol/sdk/client/auth.js`, through
 * StreamableHTTPClientTransport's authProvider) discovers the server from the 401, registers dynamically and
 * authorizes while headless Chromium plays the buyer (magic link from the mail, the emailed codes, a saved card,
 * limits). The agent then buys within the limits with tool arguments only, is refused beyond them, and after the
 * buyer revokes the permission on the buyer pages its next call is refused.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { merchantShop, saveCard as saveCardOverRest, signIn as signInOverRest, type MerchantShop } from '../buyers/fixtures.ts';
import { callTool } from '../support/mcp.ts';
import { codeIn } from '../support/smtp.ts';
import { assertAccessible } from './browser.ts';
import { linkIn, newEmail, openFromNav, signIn, startWorld, type World } from './flows.ts';

/** The host's local callback (MCP hosts listen on loopback for the redirect): the URLs it was opened with. */
let REDIRECT = '';
const callbacks: URL[] = [];
let callbackServer: Server;

/** What an MCP host keeps for one server: its registration, the PKCE verifier, the tokens; the browser opens `authUrl`. */
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
    return { client_name: 'Test MCP host', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
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

test('a stock MCP OAuth client is authorized by the buyer in the browser, buys within the limits, and stops when revoked', async () => {
  const email = newEmail();
  // The buyer saved a card at this shop on an earlier visit.
  const earlier = await signInOverRest({ h: w.h, box: w.mail, close: async () => undefined }, email, shop.shopId);
  await saveCardOverRest({ h: w.h, box: w.mail, close: async () => undefined }, earlier, email, 'pm_sandbox_visa', 100_000);

  // 1. The host connects without a token: 401 → protected-resource metadata → server metadata → registration → authorize URL.
  const auth = new HostAuth();
  await assert.rejects(connect(auth), (err: Error) => err.name === 'UnauthorizedError' || /Unauthorized/.test(err.message));
  assert.equal(auth.registrations, 1);
  assert.ok(auth.authUrl, 'the client was sent to authorize');
  assert.equal(auth.authUrl.origin + auth.authUrl.pathname, `${w.h.url}/oauth/authorize`);
  assert.equal(auth.authUrl.searchParams.get('code_challenge_method'), 'S256');
  assert.equal(auth.authUrl.searchParams.get('resource'), `${w.h.url}/mcp`);

  // 2. The buyer, in the browser: sign in by e-mail for the shop, back from the link, agent, card, limits, two codes.
  const page = await w.browser.page();
  await page.goto(auth.authUrl.href);
  await page.waitForURL(/\/buyer\/authorize\?interaction=/);
  await page.locator('main[data-ready]').waitFor();
  // The buyer sees who asks and where the answer goes.
  await page.locator('#authorize-client', { hasText: `“Test MCP host” asks to act as your agent. After your answer you return to ${new URL(REDIRECT).origin}.` }).waitFor();
  await page.getByLabel('E-mail address').fill(email);
  await page.getByLabel('Shop', { exact: true }).selectOption(shop.shopId);
  await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
  await page.locator('#authorize-sent:not([hidden])').waitFor();
  const link = linkIn(w.mail.last(email));
  assert.match(link, /[?&]authorization=/);
  await page.goto(link);
  // The landing page redeems the link and goes back to the authorization (no reload: the session stays in memory).
  await page.locator('main[data-page="authorize"] #authorize-form:not([hidden])').waitFor();
  assert.match(page.url(), /\/buyer\/authorize\?interaction=/);
  await assertAccessible(page);
  await page.getByLabel('Agent name').fill('Desktop assistant');
  assert.match(await page.getByLabel('Card to charge').locator('option:checked').innerText(), /Visa ending in 4242/);
  await page.getByLabel('Most per purchase (EUR)').fill('60');
  await page.getByLabel('Most in total per period (EUR)').fill('100');
  const mails = w.mail.count(email);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.locator('#authorize-agent-code-step:not([hidden])').waitFor();
  assert.equal(w.mail.count(email), mails + 1);
  await page.locator('#authorize-agent-code').fill(codeIn(w.mail.last(email)));
  await page.getByRole('button', { name: 'Authorize the agent' }).click();
  await page.locator('#authorize-grant-code-step:not([hidden])').waitFor();
  assert.equal(w.mail.count(email), mails + 2);
  await page.locator('#authorize-grant-code').fill(codeIn(w.mail.last(email)));
  await page.getByRole('button', { name: 'Authorize the agent' }).click();
  await page.getByText('Back in the host.').waitFor();
  const callback = callbacks.at(-1);
  assert.ok(callback);
  assert.equal(callback.searchParams.get('state'), auth.authUrl.searchParams.get('state'));
  const code = callback.searchParams.get('code');
  assert.ok(code, `no code in ${callback}`);

  // 3. The host exchanges the code (PKCE) and connects with its access token.
  const first = new StreamableHTTPClientTransport(new URL('/mcp', w.h.url), { authProvider: auth });
  await first.finishAuth(code);
  assert.ok(auth.saved?.access_token && auth.saved.refresh_token);
  const { client } = await connect(auth);
  const names = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(names.includes('quote') && names.includes('reserve') && names.includes('confirm'));

  // 4. Within the limits (60 per purchase): one ticket at 50 is bought with tool arguments only.
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

  // 5. The buyer revokes the permission on the buyer pages: the next call is refused.
  const buyerPage = await w.browser.page();
  await signIn(w, buyerPage, email);
  await openFromNav(buyerPage, 'Permissions', /\/buyer\/permissions/);
  const item = buyerPage.getByRole('article', { name: 'Desktop assistant' });
  await item.getByRole('button', { name: 'Revoke the permission of Desktop assistant' }).click();
  await buyerPage.getByRole('dialog', { name: 'Revoke the permission of Desktop assistant?' }).getByRole('button', { name: 'Revoke' }).click();
  await buyerPage.locator('#status', { hasText: 'The permission of Desktop assistant was revoked.' }).waitFor();
  // The call is answered 401; the client's refresh is refused too (invalid_grant), so it cannot get back in.
  await assert.rejects(callTool(client, 'quote', { tierId: shop.tierId, quantity: 1 }), (err: Error) => /InvalidGrant|Unauthorized/.test(`${err.name} ${err.constructor.name}`));
  await client.close();
  assert.deepEqual(w.browser.problems, []);
});
