/**
 * ACP test support: assertions on the ACP body shapes (our own zod schemas, test/support/acp-shapes.ts), a REST client
 * that speaks ACP, and a shop.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { Harness } from './harness.ts';
import { restClient, type RestResponse } from './rest.ts';
import { CHECKOUT_SHAPES, DELEGATE_SHAPES, WEBHOOK_SHAPES } from './acp-shapes.ts';
import { eventWithTier } from './spine.ts';

export const ACP_VERSION = '2026-04-17';

function checker(shapes: Record<string, z.ZodType>, family: string) {
  /** Asserts `data` has the ACP shape named `def` (the spec's `$defs` name). */
  return (def: string, data: unknown, label = def): void => {
    const shape = shapes[def];
    assert.ok(shape, `no ${family} shape ${def} in test/support/acp-shapes.ts`);
    const parsed = shape.safeParse(data);
    assert.ok(
      parsed.success,
      `${label} is not a valid ACP ${def}: ${JSON.stringify(parsed.error?.issues.slice(0, 5))}\n${JSON.stringify(data)}`,
    );
  };
}

/** Asserts an agentic-checkout body's shape. */
export const acpValid = checker(CHECKOUT_SHAPES, 'agentic checkout');
/** Asserts a delegate-payment body's shape. */
export const delegateValid = checker(DELEGATE_SHAPES, 'delegate payment');
/** Asserts an order-webhook body's shape. */
export const webhookValid = checker(WEBHOOK_SHAPES, 'order webhook');

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
  eventId: string;
  tierId: string;
  poolId: string;
}

/** A new organization with a USD shop (fee per ticket as asked), an event, a pool and a tier. */
export async function shopWithTier(
  h: Harness,
  opts: {
    capacity?: number;
    priceMinor?: number;
    feePerTicketMinor?: number;
    restrictions?: Record<string, unknown>;
  } = {},
): Promise<Shop> {
  const m = await h.merchant();
  const api = restClient(h.url, m.apiKey);
  const shop = must(
    await api.post('/v1/integration/shops', {
      name: 'ACP Shop',
      currency: 'USD',
      feePerTicketMinor: opts.feePerTicketMinor ?? 0,
    }),
    201,
  );
  const { tierId, poolId, eventId } = await eventWithTier(h, api, shop.id, {
    title: 'Arena Night',
    name: 'Floor',
    capacity: opts.capacity ?? 10,
    priceMinor: opts.priceMinor ?? 2500,
    restrictions: opts.restrictions,
  });
  return { api, apiKey: m.apiKey, shopId: shop.id, eventId, tierId, poolId };
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
export function delegateBody(
  allowance: Partial<{
    max_amount: number;
    currency: string;
    checkout_session_id: string;
    merchant_id: string;
    expires_at: string;
  }>,
  card = '4242424242424242',
) {
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
