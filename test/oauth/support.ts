/**
 * OAuth test helpers: a cookie-keeping browser stand-in over fetch, PKCE, client registration and the authorize step
 * (one code).
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { limits, type World } from '../support/buyers.ts';
import { restClient } from '../support/rest.ts';
import { codeIn } from '../support/smtp.ts';

export const REDIRECT_URI = 'http://127.0.0.1:1/callback';

/** A PKCE verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** fetch with a cookie jar and manual redirects, as a browser would carry the provider's interaction cookies. */
export class Browser {
  private readonly jar = new Map<string, string>();
  private readonly base: string;
  constructor(base: string) {
    this.base = base;
  }
  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.jar.size) headers.set('cookie', [...this.jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(new URL(path, this.base), { ...init, headers, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (!value || /expires=Thu, 01 Jan 1970/i.test(c)) this.jar.delete(name);
      else this.jar.set(name, value);
    }
    return res;
  }
  /**
   * Follows redirects on this server until one leaves it (returned), reaches `stopAt` (not fetched) or a page answers.
   */
  async follow(path: string, stopAt?: RegExp): Promise<{ url: URL; res?: Response }> {
    let url = new URL(path, this.base);
    for (let i = 0; i < 10; i++) {
      if (url.origin !== new URL(this.base).origin || stopAt?.test(url.pathname)) return { url };
      const res = await this.fetch(url.pathname + url.search);
      const loc = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !loc) return { url, res };
      await res.arrayBuffer();
      url = new URL(loc, url);
    }
    throw new Error('too many redirects');
  }
}

export async function registerClient(
  base: string,
  extra: Record<string, unknown> = {},
): Promise<{ status: number; body: any }> {
  const res = await fetch(new URL('/oauth/register', base), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Test MCP host',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...extra,
    }),
  });
  return { status: res.status, body: await res.json() };
}

export function authorizeUrl(
  clientId: string,
  challenge: string | undefined,
  extra: Record<string, string> = {},
): string {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    state: 'st-1',
    scope: 'tessera:agent',
    ...extra,
  });
  if (challenge) {
    q.set('code_challenge', challenge);
    q.set('code_challenge_method', 'S256');
  }
  return `/oauth/authorize?${q}`;
}

/** Posts a form to the token (or revocation) endpoint. */
export async function tokenRequest(
  base: string,
  params: Record<string, string>,
  path = '/oauth/token',
): Promise<{ status: number; body: any }> {
  const res = await fetch(new URL(path, base), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** A signed-in buyer with a saved card of the shop (`buyerWithAgent`'s or `saveCard`'s). */
export interface OAuthBuyer {
  email: string;
  session: string;
  instrumentId: string;
}

/** The details a buyer authorizes at the end of the authorize step (`authorize_agent`'s input without the code). */
export function authorization(
  w: World,
  buyer: OAuthBuyer,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    name: `MCP host ${randomBytes(4).toString('hex')}`,
    instrumentId: buyer.instrumentId,
    ...limits(w, { perPurchaseCapMinor: 10_000, allowanceMinor: 15_000 }),
    ...extra,
  };
}

/** Opens the authorization URL in `browser` up to the buyer pages; returns the interaction uid. */
export async function openInteraction(browser: Browser, url: string): Promise<string> {
  const start = await browser.follow(url, /^\/buyer\//);
  assert.equal(start.url.pathname, '/buyer/authorize', `authorize did not reach the buyer pages: ${start.url}`);
  const interaction = start.url.searchParams.get('interaction');
  assert.ok(interaction, `no interaction in ${start.url}`);
  return interaction;
}

/** Asks the one e-mailed code for `details` and returns its proof (`challengeId`, `code`). */
export async function codeFor(
  w: World,
  buyer: OAuthBuyer,
  details: Record<string, unknown>,
): Promise<{ challengeId: string; code: string }> {
  const asked = await restClient(w.h.url, buyer.session).post('/v1/buyer/verification-codes', {
    purpose: 'authorize_agent',
    authorization: details,
  });
  assert.equal(asked.status, 201, JSON.stringify(asked.body));
  return { challengeId: asked.body.challengeId, code: codeIn(w.box.last(buyer.email)) };
}

/** Posts the end of the authorize step for `uid` (the details and the code's proof) with the buyer's session. */
export function completeInteraction(
  browser: Browser,
  uid: string,
  session: string,
  body: Record<string, unknown>,
): Promise<Response> {
  return browser.fetch(`/oauth/interaction/${uid}/complete`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${session}` },
    body: JSON.stringify(body),
  });
}

/**
 * Plays the buyer through the authorize step without a page: opens the authorization URL, asks the one code for a
 * new agent charging the buyer's saved card, finishes the interaction with the details and the code, and returns the
 * client's redirect with the code, and the agent and permission the authorization created.
 */
export async function authorizeWith(
  w: World,
  browser: Browser,
  url: string,
  buyer: OAuthBuyer,
): Promise<{ url: URL; agentId: string; permissionId: string }> {
  const uid = await openInteraction(browser, url);
  const details = authorization(w, buyer);
  const done = await completeInteraction(browser, uid, buyer.session, {
    ...details,
    ...(await codeFor(w, buyer, details)),
  });
  const body = (await done.json()) as { redirectTo: string };
  assert.equal(done.status, 200, JSON.stringify(body));
  const back = await browser.follow(body.redirectTo);
  assert.equal(back.url.origin + back.url.pathname, REDIRECT_URI);
  const buyerApi = restClient(w.h.url, buyer.session);
  const agent = (await buyerApi.get('/v1/buyer/agents')).body.agents.find(
    (a: { name: string }) => a.name === details.name,
  );
  assert.ok(agent, 'the authorization created its agent');
  const { permissions } = (await buyerApi.get(`/v1/buyer/permissions?agentId=${agent.id}`)).body;
  assert.equal(permissions.length, 1);
  return { url: back.url, agentId: agent.id, permissionId: permissions[0].id };
}
