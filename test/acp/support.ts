/** ACP test support: the reference JSON Schemas (read from ../shared at run time), a REST client that speaks ACP, and a shop. */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Harness } from '../support/harness.ts';
import { restClient, type RestResponse } from '../support/rest.ts';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const repoRoot = join(import.meta.dirname, '..', '..');
const SPEC = join(repoRoot, '..', 'shared', 'reference', 'acp-2026-04-17', 'spec', '2026-04-17', 'json-schema');
export const ACP_VERSION = '2026-04-17';

function loadBundle(file: string) {
  const schema = JSON.parse(readFileSync(join(SPEC, file), 'utf8'));
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(schema);
  /** Asserts `data` is valid against `$defs/<def>` of the bundle. */
  return (def: string, data: unknown, label = def): void => {
    const validate = ajv.getSchema(`${schema.$id}#/$defs/${def}`);
    assert.ok(validate, `no $defs/${def} in ${file}`);
    const ok = validate(data);
    assert.ok(ok, `${label} is not a valid ACP ${def}: ${JSON.stringify(validate.errors?.slice(0, 5))}\n${JSON.stringify(data)}`);
  };
}

let checkout: ReturnType<typeof loadBundle> | undefined;
let delegate: ReturnType<typeof loadBundle> | undefined;
/** Validates against schema.agentic_checkout.json. */
export const acpValid = (def: string, data: unknown, label?: string) => (checkout ??= loadBundle('schema.agentic_checkout.json'))(def, data, label);
/** Validates against schema.delegate_payment.json. */
export const delegateValid = (def: string, data: unknown, label?: string) => (delegate ??= loadBundle('schema.delegate_payment.json'))(def, data, label);

export type Api = ReturnType<typeof restClient>;

/** An ACP REST client: API-Version on every call, a fresh Idempotency-Key on every POST unless one is given. */
export function acpClient(h: Harness, token?: string) {
  const api = restClient(h.url, token);
  const headers = (extra: Record<string, string> = {}) => ({ 'api-version': ACP_VERSION, ...extra });
  return {
    get: (path: string, extra?: Record<string, string>) => api.get(path, headers(extra)),
    post: (path: string, body?: unknown, extra: Record<string, string> = {}) =>
      api.post(path, body, headers({ 'idempotency-key': randomUUID(), ...extra })),
    raw: api,
  };
}
export type AcpClient = ReturnType<typeof acpClient>;

export function must<T = any>(res: RestResponse<T>, status: number): T {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

export interface Shop {
  api: Api;
  apiKey: string;
  shopId: string;
  tierId: string;
  poolId: string;
}

/** A new organization with a USD shop (fee per ticket as asked), an event, a pool and a tier. */
export async function shopWithTier(
  h: Harness,
  opts: { capacity?: number; priceMinor?: number; feePerTicketMinor?: number; restrictions?: Record<string, unknown> } = {},
): Promise<Shop> {
  const m = await h.merchant();
  const api = restClient(h.url, m.apiKey);
  const shop = must(await api.post('/v1/integration/shops', { name: 'ACP Shop', currency: 'USD', feePerTicketMinor: opts.feePerTicketMinor ?? 0 }), 201);
  const startsAt = new Date(h.clock.now().getTime() + 30 * 86_400_000).toISOString();
  const event = must(await api.post('/v1/integration/events', { merchantId: shop.id, title: 'Arena Night', startsAt }), 201);
  const pool = must(await api.post('/v1/integration/pools', { merchantId: shop.id, eventId: event.id, capacity: opts.capacity ?? 10 }), 201);
  const tier = must(
    await api.post('/v1/integration/tiers', { eventId: event.id, poolId: pool.id, name: 'Floor', priceMinor: opts.priceMinor ?? 2500, ...opts.restrictions }),
    201,
  );
  return { api, apiKey: m.apiKey, shopId: shop.id, tierId: tier.id, poolId: pool.id };
}

/** An ACP create request for one tier (quantity only when given: the documented deviation). */
export function createBody(tierId: string, extra: Record<string, unknown> = {}, quantity?: number) {
  return {
    currency: 'usd',
    line_items: [{ id: tierId, ...(quantity !== undefined ? { quantity } : {}) }],
    capabilities: { interventions: { supported: ['3ds'] } },
    buyer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.test' },
    ...extra,
  };
}

/** A DelegatePaymentRequest for a sandbox test card within an allowance. */
export function delegateBody(allowance: Partial<{ max_amount: number; currency: string; checkout_session_id: string; merchant_id: string; expires_at: string }>, card = '4242424242424242') {
  return {
    payment_method: {
      type: 'card',
      card_number_type: 'fpan',
      virtual: false,
      number: card,
      exp_month: '11',
      exp_year: '2099',
      name: 'Ada Lovelace',
      cvc: '123',
      display_card_funding_type: 'credit',
      display_last4: card.slice(-4),
      metadata: { issuer: 'sandbox' },
    },
    allowance: {
      reason: 'one_time',
      max_amount: 10_000,
      currency: 'usd',
      checkout_session_id: 'cs_unset',
      merchant_id: 'shop_unset',
      expires_at: '2099-01-01T00:00:00Z',
      ...allowance,
    },
    risk_signals: [{ type: 'card_testing', score: 3, action: 'authorized' }],
    metadata: { source: 'test' },
  };
}

/** A CheckoutSessionCompleteRequest paying with a delegated token. */
export function completeBody(token: string) {
  return {
    buyer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.test' },
    payment_data: { handler_id: 'card_tokenized', instrument: { type: 'card', credential: { type: 'spt', token } } },
  };
}
