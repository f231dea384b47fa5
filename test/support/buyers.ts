/**
 * Builders for the buyer and agent tests: a harness whose mail goes to a real loopback SMTP server, and the buyer
 * flows.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { BootstrapResult } from '../../src/domain/merchants/merchants.ts';
import { startHarness, type Harness } from './harness.ts';
import { restClient, type RestResponse } from './rest.ts';
import { codeIn, signInTokenIn, startMailbox, type Mailbox } from './smtp.ts';
import { eventWithTier } from './spine.ts';

export type Api = ReturnType<typeof restClient>;

export interface World {
  h: Harness;
  box: Mailbox;
  close(): Promise<void>;
}

/** A mailbox on loopback, then a harness sending to it over SMTP; background loops off (tests drive them). */
export async function startWorld(env: Record<string, string> = {}): Promise<World> {
  const box = await startMailbox();
  const h = await startHarness({
    SMTP_URL: box.url,
    SWEEP_INTERVAL_MS: '0',
    SANDBOX_DISPATCH_MS: '0',
    WEBHOOK_DISPATCH_MS: '0',
    RATE_LIMIT_PER_MINUTE: '100000',
    ...env,
  });
  return {
    h,
    box,
    async close() {
      await h.close();
      await box.close();
    },
  };
}

export function must<T = any>(res: RestResponse<T>, status: number): T {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

export const key = (): Record<string, string> => ({ 'idempotency-key': randomUUID() });

let emails = 0;
/** A fresh buyer address. */
export const newEmail = (): string => `buyer${++emails}-${randomUUID().slice(0, 8)}@example.test`;

export interface MerchantShop extends BootstrapResult {
  api: Api;
  tierId: string;
  poolId: string;
  eventId: string;
}

/** An organization with its shop (EUR, sandbox payments), an event, a pool and one tier at `priceMinor`. */
export async function merchantShop(
  h: Harness,
  opts: { priceMinor?: number; capacity?: number; scopes?: string[]; discoverable?: boolean } = {},
): Promise<MerchantShop> {
  const m = await h.merchant((opts.scopes ?? ['merchant:read', 'merchant:write', 'merchant:admin']) as never);
  const api = restClient(h.url, m.apiKey);
  // Agents and shopless buyer sessions see only discoverable shops (and those they hold a permission at).
  if (opts.discoverable) must(await api.patch(`/v1/integration/shops/${m.shopId}`, { discoverable: true }), 200);
  const made = await eventWithTier(h, api, m.shopId, {
    capacity: opts.capacity ?? 50,
    priceMinor: opts.priceMinor ?? 5000,
  });
  return { ...m, api, ...made };
}

/** Signs in by magic link (read from the loopback SMTP server) and returns the full session's bearer. */
export async function signIn(w: World, email: string, merchantId?: string): Promise<string> {
  const anon = restClient(w.h.url);
  must(await anon.post('/v1/buyer/sign-in-links', { email, ...(merchantId ? { merchantId } : {}) }), 202);
  const session = must(await anon.post('/v1/buyer/sessions', { token: signInTokenIn(w.box.last(email)) }), 201);
  assert.equal(session.mode, 'full');
  return session.token;
}

/** Asks for a code for `purpose` and reads it from the buyer's mail. */
export async function codeFor(
  w: World,
  session: string,
  email: string,
  purpose: string,
): Promise<{ challengeId: string; code: string }> {
  const res = must(await restClient(w.h.url, session).post('/v1/buyer/verification-codes', { purpose }), 201);
  return { challengeId: res.challengeId, code: codeIn(w.box.last(email)) };
}

/** Starts and completes a card setup with `paymentMethod` and saves it (with a code); returns the instrument. */
export async function saveCard(
  w: World,
  session: string,
  email: string,
  paymentMethod = 'pm_sandbox_visa',
  spendingCapMinor = 100_000,
) {
  const api = restClient(w.h.url, session);
  const setup = must(await api.post('/v1/buyer/card-setups', {}), 201);
  must(await api.post(`/v1/buyer/card-setups/${setup.setupId}/complete`, { paymentMethod }), 200);
  const proof = await codeFor(w, session, email, 'save_card');
  return must(await api.post('/v1/buyer/instruments', { setupId: setup.setupId, spendingCapMinor, ...proof }), 201)
    .instrument;
}

/** Creates an agent with an issued token (after a code). */
export async function createAgent(
  w: World,
  session: string,
  email: string,
  name = 'Shopping agent',
): Promise<{ agent: any; token: string }> {
  const proof = await codeFor(w, session, email, 'create_agent');
  const res = must(await restClient(w.h.url, session).post('/v1/buyer/agents', { name, ...proof }), 201);
  return { agent: res.agent, token: res.token };
}

export interface Limits {
  perPurchaseCapMinor?: number;
  allowanceMinor?: number;
  windowHours?: number;
  expiresAt?: string;
}

export function limits(w: World, l: Limits = {}) {
  return {
    perPurchaseCapMinor: l.perPurchaseCapMinor ?? 20_000,
    allowanceMinor: l.allowanceMinor ?? 50_000,
    windowHours: l.windowHours ?? 24,
    expiresAt: l.expiresAt ?? new Date(w.h.clock.now().getTime() + 7 * 86_400_000).toISOString(),
  };
}

/** Grants a permission (after a code) and returns it. */
export async function grant(
  w: World,
  session: string,
  email: string,
  agentId: string,
  instrumentId: string,
  l: Limits = {},
) {
  const proof = await codeFor(w, session, email, 'grant_permission');
  return must(
    await restClient(w.h.url, session).post('/v1/buyer/permissions', {
      agentId,
      instrumentId,
      ...limits(w, l),
      ...proof,
    }),
    201,
  );
}

export interface AgentSetup {
  email: string;
  session: string;
  agentId: string;
  agentToken: string;
  instrumentId: string;
  permission: any;
}

/** A buyer signed in for `shop`, with a saved card there, an agent and a permission for it. */
export async function buyerWithAgent(
  w: World,
  shop: { shopId: string },
  l: Limits = {},
  paymentMethod = 'pm_sandbox_visa',
): Promise<AgentSetup> {
  const email = newEmail();
  const session = await signIn(w, email, shop.shopId);
  const instrument = await saveCard(w, session, email, paymentMethod);
  const { agent, token } = await createAgent(w, session, email);
  const permission = await grant(w, session, email, agent.id, instrument.id, l);
  return { email, session, agentId: agent.id, agentToken: token, instrumentId: instrument.id, permission };
}

/** quote → reserve → confirm as `api`'s credential (an agent sends no payment method). */
export async function buy(api: Api, tierId: string, quantity = 1, confirmBody: Record<string, unknown> = {}) {
  const q = await api.post('/v1/ticketing/quotes', { tierId, quantity });
  if (q.status !== 201) return q;
  const r = await api.post('/v1/ticketing/reservations', { quoteId: q.body.quoteId }, key());
  if (r.status !== 201) return r;
  return api.post(`/v1/ticketing/reservations/${r.body.reservation.id}/confirm`, confirmBody, key());
}
