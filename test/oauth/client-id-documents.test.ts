/**
 * OAuth client ID metadata documents end to end: the MCP SDK's OAuth client with `clientMetadataUrl` (no
 * registration) against a document served over https on loopback (allowed by the development setting
 * `OAUTH_CLIENT_ID_DOCUMENTS_ALLOW_LOOPBACK`), the buyer's authorize step played over HTTP; and the documents refused.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { buyerWithAgent, merchantShop, must, startWorld, type MerchantShop, type World } from '../support/buyers.ts';
import { restClient } from '../support/rest.ts';
import {
  authorization,
  authorizeUrl,
  Browser,
  codeFor,
  completeInteraction,
  openInteraction,
  pkce,
} from './support.ts';

const REDIRECT = 'http://127.0.0.1:1/callback';
let w: World;
let shop: MerchantShop;
let docs: Server;
let docsUrl = '';
/** The documents the https server serves, by path, and how often each was fetched. */
const served = new Map<string, unknown>();
const fetched = new Map<string, number>();

before(async () => {
  w = await startWorld({ OAUTH_CLIENT_ID_DOCUMENTS_ALLOW_LOOPBACK: 'true' });
  shop = await merchantShop(w.h, { priceMinor: 5000, discoverable: true });
  const cert = await generate([{ name: 'commonName', value: '127.0.0.1' }], { keySize: 2048 });
  docs = createHttpsServer({ key: cert.private, cert: cert.cert }, (req, res) => {
    const path = req.url ?? '/';
    fetched.set(path, (fetched.get(path) ?? 0) + 1);
    const doc = served.get(path);
    if (doc === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=600' }).end(JSON.stringify(doc));
  });
  await new Promise<void>((ok) => docs.listen(0, '127.0.0.1', () => ok()));
  docsUrl = `https://127.0.0.1:${(docs.address() as AddressInfo).port}`;
});
after(async () => {
  docs?.closeAllConnections();
  await new Promise<void>((ok) => (docs ? docs.close(() => ok()) : ok()));
  await w?.close();
});

/** Serves a client's document at `path`: `client_id` is its own URL unless `extra` says otherwise. */
function serve(path: string, extra: Record<string, unknown> = {}): string {
  const url = `${docsUrl}${path}`;
  served.set(path, {
    client_id: url,
    client_name: 'Document host',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...extra,
  });
  return url;
}

/** An MCP host identified by its metadata document: it never registers. */
class DocumentHost implements OAuthClientProvider {
  saved: OAuthTokens | undefined;
  verifier = '';
  authUrl: URL | undefined;
  registrations = 0;
  info: OAuthClientInformationMixed | undefined;
  readonly clientMetadataUrl: string;
  constructor(url: string) {
    this.clientMetadataUrl = url;
  }
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata() {
    return { client_name: 'Document host', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    if (info.client_id !== this.clientMetadataUrl) this.registrations++;
    this.info = info;
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

test('the metadata advertises client ID metadata documents', async () => {
  const m = must(await restClient(w.h.url).get('/.well-known/oauth-authorization-server'), 200);
  assert.equal(m.client_id_metadata_document_supported, true);
});

test('the MCP SDK client with a clientMetadataUrl is authorized without registering, and its token works', async () => {
  const url = serve('/hosts/sdk.json');
  const host = new DocumentHost(url);
  const connect = async () => {
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', w.h.url), { authProvider: host });
    const client = new Client({ name: 'cimd-host', version: '0' });
    await client.connect(transport);
    return { client, transport };
  };
  await assert.rejects(connect(), (err: Error) => /Unauthorized/.test(`${err.name} ${err.message}`));
  assert.equal(host.registrations, 0);
  assert.equal(host.authUrl?.searchParams.get('client_id'), url);
  // The buyer's part: the authorize step shows the document's client name, and ends with the one code.
  const buyer = await buyerWithAgent(w, shop, { perPurchaseCapMinor: 10_000, allowanceMinor: 15_000 });
  const browser = new Browser(w.h.url);
  const uid = await openInteraction(browser, host.authUrl!.pathname + host.authUrl!.search);
  const shown = (await (await browser.fetch(`/oauth/interaction/${uid}/details`)).json()) as Record<string, unknown>;
  assert.equal(JSON.stringify(shown).includes('Document host'), true, JSON.stringify(shown));
  const details = authorization(w, buyer);
  const done = await completeInteraction(browser, uid, buyer.session, {
    ...details,
    ...(await codeFor(w, buyer, details)),
  });
  const { redirectTo } = (await done.json()) as { redirectTo: string };
  const back = await browser.follow(redirectTo);
  assert.equal(back.url.origin + back.url.pathname, REDIRECT);
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', w.h.url), { authProvider: host });
  await transport.finishAuth(back.url.searchParams.get('code')!);
  assert.ok(host.saved?.access_token);
  const { client } = await connect();
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === 'quote'));
  await client.close();
  assert.equal(host.registrations, 0);
  assert.equal(fetched.get('/hosts/sdk.json'), 1, 'the document is fetched once and kept for its max-age');
});

test('a document that names another client_id, a plain-http redirect or a private address is invalid_client', async () => {
  const { challenge } = pkce();
  const refused = async (clientId: string, redirect = REDIRECT, error = /invalid_client/) => {
    const url = authorizeUrl(clientId, challenge, { redirect_uri: redirect });
    const res = await new Browser(w.h.url).fetch(url);
    const page = await res.text();
    assert.equal(res.status, 400, `${clientId}: ${page}`);
    assert.match(page, error, `${clientId}: ${page}`);
  };
  await refused(serve('/hosts/other.json', { client_id: `${docsUrl}/hosts/someone-else.json` }));
  const plain = 'http://example.com/callback';
  await refused(serve('/hosts/http.json', { redirect_uris: [plain] }), plain, /invalid_client|invalid_redirect_uri/);
  await refused(`${docsUrl}/hosts/missing.json`);
  // Never fetched: the address policy refuses a private address before any connection.
  const before = fetched.size;
  await refused('https://10.0.0.1/hosts/private.json');
  assert.equal(fetched.size, before);
});
