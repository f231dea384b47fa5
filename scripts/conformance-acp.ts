/**
 * `npm run conformance:acp -- <schema dir>`: starts Tessera (embedded PostgreSQL, or DATABASE_URL), drives the ACP
 * checkout flow over real HTTP, and validates every request and response body with Ajv (JSON Schema 2020-12)
 * against the official ACP schemas in <schema dir> (the reference checkout's root, or its json-schema directory).
 * The order webhooks the server sends to a local receiver (ACP's Merchant-Signature checked) are validated against
 * `WebhookEvent` of openapi.agentic_checkout_webhook.yaml (beside the json-schema directory, under openapi/).
 * Prints one summary line; exits non-zero on any invalid body or a broken flow.
 *
 * Each check is a `Flow` that sends requests and hands bodies to `check(bundle, def, body, label)`: the checkout flow
 * (schema.agentic_checkout.json, schema.delegate_payment.json) and the product feed (schema.feed.json).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse as parseYaml } from 'yaml';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'src', 'cli.ts');
const ACP_VERSION = '2026-04-17';

type Bundle = 'schema.agentic_checkout.json' | 'schema.delegate_payment.json' | 'schema.feed.json';

interface Ctx {
  url: string;
  apiKey: string;
  shopId: string;
  /** Validates `body` against `$defs/<def>` of `bundle`; a failure is counted and printed, not thrown. */
  check(bundle: Bundle, def: string, body: unknown, label: string): void;
  /** An ACP call (API-Version, bearer, a fresh Idempotency-Key on POST); throws unless the status is `want`. */
  acp(
    method: 'GET' | 'POST',
    path: string,
    want: number,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<any>;
  /** A Tessera REST call with the merchant's key; throws unless the status is `want`. */
  rest(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH',
    path: string,
    want: number,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<any>;
  /** A local HTTP receiver of webhooks (the server runs with WEBHOOK_ALLOW_LOOPBACK=true). */
  receiver: WebhookReceiver;
  /** Validates an ACP order-webhook body against `WebhookEvent` of openapi.agentic_checkout_webhook.yaml. */
  checkWebhook(body: unknown, label: string): void;
  /** An anonymous call (discovery is public); throws unless the status is `want`. */
  anon(path: string, want: number): Promise<any>;
}
type Flow = { name: string; run(ctx: Ctx): Promise<void> };

interface WebhookReceiver {
  url: string;
  /** The next request not yet taken (waits up to 60 s: the server's dispatcher runs every second). */
  next(): Promise<{ headers: IncomingHttpHeaders; body: string }>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<WebhookReceiver> {
  const queue: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const waiting: Array<() => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      queue.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ received: true }));
      for (const w of waiting.splice(0)) w();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async next() {
      const deadline = Date.now() + 60_000;
      while (!queue.length) {
        if (Date.now() > deadline) throw new Error('no webhook arrived within 60 s');
        await new Promise<void>((ok) => {
          waiting.push(ok);
          setTimeout(ok, 1000);
        });
      }
      return queue.shift()!;
    },
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

/** The directory holding the bundles: `<dir>/spec/<version>/json-schema`, or `<dir>` itself. */
function schemaDir(arg: string | undefined): string {
  if (!arg)
    throw new Error(
      'usage: npm run conformance:acp -- <schema dir> (the ACP reference root, or its spec/<version>/json-schema)',
    );
  const dir = resolve(arg);
  for (const candidate of [dir, join(dir, 'spec', ACP_VERSION, 'json-schema')]) {
    if (existsSync(join(candidate, 'schema.agentic_checkout.json'))) return candidate;
  }
  throw new Error(`no schema.agentic_checkout.json in ${dir} or ${join(dir, 'spec', ACP_VERSION, 'json-schema')}`);
}

function validators(dir: string) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const ids = new Map<Bundle, string>();
  return (bundle: Bundle, def: string) => {
    if (!ids.has(bundle)) {
      const schema = JSON.parse(readFileSync(join(dir, bundle), 'utf8')) as { $id: string };
      ajv.addSchema(schema);
      ids.set(bundle, schema.$id);
    }
    const validate = ajv.getSchema(`${ids.get(bundle)}#/$defs/${def}`);
    if (!validate) throw new Error(`no $defs/${def} in ${bundle}`);
    return validate;
  };
}

/**
 * The webhook OpenAPI's `WebhookEvent` as a JSON Schema: its components, with the cross-file reference to the
 * checkout OpenAPI's `Order` pointed at the same `Order` of the checkout JSON Schema bundle.
 */
function webhookValidator(dir: string) {
  const yamlPath = join(dir, '..', 'openapi', 'openapi.agentic_checkout_webhook.yaml');
  const doc = parseYaml(readFileSync(yamlPath, 'utf8')) as { components: { schemas: Record<string, unknown> } };
  const checkout = JSON.parse(readFileSync(join(dir, 'schema.agentic_checkout.json'), 'utf8')) as { $id: string };
  const text = JSON.stringify(doc.components.schemas)
    .replaceAll('./openapi.agentic_checkout.yaml#/components/schemas/', `${checkout.$id}#/$defs/`)
    .replaceAll('#/components/schemas/', 'https://tessera.invalid/acp-webhook.json#/$defs/');
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(checkout);
  ajv.addSchema({ $id: 'https://tessera.invalid/acp-webhook.json', $defs: JSON.parse(text) });
  const validate = ajv.getSchema('https://tessera.invalid/acp-webhook.json#/$defs/WebhookEvent');
  if (!validate) throw new Error(`no WebhookEvent in ${yamlPath}`);
  return validate;
}

/** ACP's Merchant-Signature check (t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">, 300 s tolerance). */
function merchantSignatureValid(header: unknown, body: string, secret: string): boolean {
  const m = /^t=(\d+),v1=([a-fA-F0-9]{64})$/.exec(typeof header === 'string' ? header : '');
  if (!m || Math.abs(Date.now() / 1000 - Number(m[1])) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${m[1]}.${body}`).digest();
  const given = Buffer.from(m[2]!, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const WEBHOOK_SECRET = `conformance-${randomUUID()}`;

const orderWebhookFlow: Flow = {
  name: 'order webhooks: order_create after complete, order_update after a partial refund, signed with Merchant-Signature',
  async run(c) {
    const startsAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const event = await c.rest('POST', '/v1/integration/events', 201, {
      merchantId: c.shopId,
      title: 'Webhook Night',
      startsAt,
    });
    const pool = await c.rest('POST', '/v1/integration/pools', 201, {
      merchantId: c.shopId,
      eventId: event.id,
      capacity: 10,
    });
    const tier = await c.rest('POST', '/v1/integration/tiers', 201, {
      eventId: event.id,
      poolId: pool.id,
      name: 'Floor',
      priceMinor: 2500,
    });
    await c.rest('PUT', `/v1/integration/shops/${c.shopId}/acp-webhook`, 200, {
      url: `${c.receiver.url}/agentic_checkout/webhooks/order_events`,
      secret: WEBHOOK_SECRET,
    });
    const created = await c.acp('POST', '/checkout_sessions', 201, {
      currency: 'usd',
      line_items: [{ id: tier.id, quantity: 2 }],
      capabilities: {},
    });
    const total = created.totals.find((t: { type: string }) => t.type === 'total').amount as number;
    const token = await c.acp('POST', '/agentic_commerce/delegate_payment', 201, {
      payment_method: {
        type: 'card',
        card_number_type: 'fpan',
        number: '4242424242424242',
        exp_month: '11',
        exp_year: '2099',
        display_card_funding_type: 'credit',
        metadata: {},
      },
      allowance: {
        reason: 'one_time',
        max_amount: total,
        currency: 'usd',
        checkout_session_id: created.id,
        merchant_id: c.shopId,
        expires_at: '2099-01-01T00:00:00Z',
      },
      risk_signals: [],
      metadata: {},
    });
    const done = await c.acp('POST', `/checkout_sessions/${created.id}/complete`, 200, {
      payment_data: {
        handler_id: 'card_tokenized',
        instrument: { type: 'card', credential: { type: 'spt', token: token.id } },
      },
    });
    const receive = async (label: string, type: string) => {
      const got = await c.receiver.next();
      if (!merchantSignatureValid(got.headers['merchant-signature'], got.body, WEBHOOK_SECRET))
        throw new Error(`${label}: the Merchant-Signature does not verify`);
      const body = JSON.parse(got.body) as { type: string; data: { id: string } };
      if (body.type !== type || body.data.id !== done.order.id)
        throw new Error(`${label}: expected ${type} of ${done.order.id}, got ${body.type} of ${body.data.id}`);
      c.checkWebhook(body, label);
    };
    await receive('order_create after complete', 'order_create');
    const order = await c.rest('GET', `/v1/ticketing/orders/${done.order.id}`, 200);
    await c.rest(
      'POST',
      `/v1/ticketing/orders/${done.order.id}/refunds`,
      200,
      { ticketIds: [order.tickets[0].id], reason: 'Cannot attend', returnToPool: true },
      { 'idempotency-key': randomUUID() },
    );
    await receive('order_update after a partial refund', 'order_update');
  },
};

const twoLineFlow: Flow = {
  name: 'two line items: a session of two tiers (two pools), complete, order_create with two lines, a refund of one line',
  async run(c) {
    const CO = 'schema.agentic_checkout.json';
    const startsAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const event = await c.rest('POST', '/v1/integration/events', 201, {
      merchantId: c.shopId,
      title: 'Family Matinee',
      startsAt,
    });
    const tiers: any[] = [];
    for (const [name, priceMinor] of [
      ['Adult', 3000],
      ['Child', 1500],
    ] as const) {
      const pool = await c.rest('POST', '/v1/integration/pools', 201, {
        merchantId: c.shopId,
        eventId: event.id,
        capacity: 10,
      });
      tiers.push(
        await c.rest('POST', '/v1/integration/tiers', 201, { eventId: event.id, poolId: pool.id, name, priceMinor }),
      );
    }
    const createReq = {
      currency: 'usd',
      line_items: [
        { id: tiers[0].id, quantity: 2 },
        { id: tiers[1].id, quantity: 1 },
      ],
      capabilities: {},
    };
    const created = await c.acp('POST', '/checkout_sessions', 201, createReq);
    c.check(CO, 'CheckoutSession', created, 'POST /checkout_sessions (two line items)');
    if (created.status !== 'ready_for_payment' || created.line_items.length !== 2)
      throw new Error(`two line items: expected a ready session of 2 line items, got ${JSON.stringify(created)}`);
    const updated = await c.acp('POST', `/checkout_sessions/${created.id}`, 200, {
      line_items: [
        { id: tiers[0].id, quantity: 1 },
        { id: tiers[1].id, quantity: 2 },
      ],
    });
    c.check(CO, 'CheckoutSession', updated, 'POST /checkout_sessions/{id} (two line items changed)');
    const total = updated.totals.find((t: { type: string }) => t.type === 'total').amount as number;
    if (total !== 6000) throw new Error(`two line items: expected a total of 6000, got ${total}`);
    const token = await c.acp('POST', '/agentic_commerce/delegate_payment', 201, {
      payment_method: {
        type: 'card',
        card_number_type: 'fpan',
        number: '4242424242424242',
        exp_month: '11',
        exp_year: '2099',
        display_card_funding_type: 'credit',
        metadata: {},
      },
      allowance: {
        reason: 'one_time',
        max_amount: total,
        currency: 'usd',
        checkout_session_id: created.id,
        merchant_id: c.shopId,
        expires_at: '2099-01-01T00:00:00Z',
      },
      risk_signals: [],
      metadata: {},
    });
    const done = await c.acp('POST', `/checkout_sessions/${created.id}/complete`, 200, {
      payment_data: {
        handler_id: 'card_tokenized',
        instrument: { type: 'card', credential: { type: 'spt', token: token.id } },
      },
    });
    c.check(CO, 'CheckoutSession', done, 'POST /checkout_sessions/{id}/complete (two line items)');
    const created1 = JSON.parse((await c.receiver.next()).body);
    if (created1.type !== 'order_create' || created1.data.line_items.length !== 2)
      throw new Error(`two line items: expected order_create with 2 line items, got ${JSON.stringify(created1)}`);
    c.checkWebhook(created1, 'order_create (two line items)');
    const order = await c.rest('GET', `/v1/ticketing/orders/${done.order.id}`, 200);
    const child = order.tickets.find((t: { tierId: string }) => t.tierId === tiers[1].id);
    await c.rest(
      'POST',
      `/v1/ticketing/orders/${done.order.id}/refunds`,
      200,
      { ticketIds: [child.id], reason: 'Cannot attend', returnToPool: true },
      { 'idempotency-key': randomUUID() },
    );
    c.checkWebhook(JSON.parse((await c.receiver.next()).body), 'order_update (a refund of one line)');
  },
};

const checkoutFlow: Flow = {
  name: 'checkout: discovery, create, retrieve, update, delegate payment, complete, cancel, errors',
  async run(c) {
    const CO = 'schema.agentic_checkout.json';
    const DP = 'schema.delegate_payment.json';
    const discovery = await fetch(`${c.url}/.well-known/acp.json`);
    c.check(CO, 'DiscoveryResponse', await discovery.json(), 'GET /.well-known/acp.json');

    const startsAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const event = await c.rest('POST', '/v1/integration/events', 201, {
      merchantId: c.shopId,
      title: 'Conformance Night',
      startsAt,
    });
    const pool = await c.rest('POST', '/v1/integration/pools', 201, {
      merchantId: c.shopId,
      eventId: event.id,
      capacity: 10,
    });
    const tier = await c.rest('POST', '/v1/integration/tiers', 201, {
      eventId: event.id,
      poolId: pool.id,
      name: 'Floor',
      priceMinor: 2500,
    });

    const buyer = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.test' };
    const createReq = {
      currency: 'usd',
      line_items: [{ id: tier.id }],
      capabilities: { interventions: { supported: ['3ds'] } },
      buyer,
    };
    c.check(CO, 'CheckoutSessionCreateRequest', createReq, 'create request');
    const created = await c.acp('POST', '/checkout_sessions', 201, createReq);
    c.check(CO, 'CheckoutSession', created, 'POST /checkout_sessions');
    c.check(
      CO,
      'CheckoutSession',
      await c.acp('GET', `/checkout_sessions/${created.id}`, 200),
      'GET /checkout_sessions/{id}',
    );

    const updateReq = {
      fulfillment_details: {
        name: 'Ada Lovelace',
        email: 'ada@example.test',
        address: {
          name: 'Ada Lovelace',
          line_one: '1 Analytical St',
          city: 'London',
          state: 'LDN',
          country: 'GB',
          postal_code: 'N1 1AA',
        },
      },
      selected_fulfillment_options: [
        { type: 'digital', option_id: 'digital_tickets', item_ids: [created.line_items[0].id] },
      ],
    };
    c.check(CO, 'CheckoutSessionUpdateRequest', updateReq, 'update request');
    c.check(
      CO,
      'CheckoutSession',
      await c.acp('POST', `/checkout_sessions/${created.id}`, 200, updateReq),
      'POST /checkout_sessions/{id}',
    );

    const total = created.totals.find((t: { type: string }) => t.type === 'total').amount as number;
    const delegateReq = {
      payment_method: {
        type: 'card',
        card_number_type: 'fpan',
        virtual: false,
        number: '4242424242424242',
        exp_month: '11',
        exp_year: '2099',
        name: 'Ada Lovelace',
        cvc: '123',
        display_card_funding_type: 'credit',
        display_last4: '4242',
        metadata: { issuer: 'sandbox' },
      },
      allowance: {
        reason: 'one_time',
        max_amount: total,
        currency: 'usd',
        checkout_session_id: created.id,
        merchant_id: c.shopId,
        expires_at: '2099-01-01T00:00:00Z',
      },
      risk_signals: [{ type: 'card_testing', score: 3, action: 'authorized' }],
      metadata: { source: 'conformance' },
    };
    c.check(DP, 'DelegatePaymentRequest', delegateReq, 'delegate_payment request');
    const token = await c.acp('POST', '/agentic_commerce/delegate_payment', 201, delegateReq);
    c.check(DP, 'DelegatePaymentResponse', token, 'POST /agentic_commerce/delegate_payment');
    const refused = await c.acp('POST', '/agentic_commerce/delegate_payment', 400, delegateReq, {
      'idempotency-key': '',
    });
    c.check(DP, 'Error', refused, 'delegate_payment without an Idempotency-Key');

    const completeReq = {
      buyer,
      payment_data: {
        handler_id: 'card_tokenized',
        instrument: { type: 'card', credential: { type: 'spt', token: token.id } },
      },
    };
    c.check(CO, 'CheckoutSessionCompleteRequest', completeReq, 'complete request');
    const done = await c.acp('POST', `/checkout_sessions/${created.id}/complete`, 200, completeReq);
    c.check(CO, 'CheckoutSessionWithOrder', done, 'POST /checkout_sessions/{id}/complete');

    const other = await c.acp('POST', '/checkout_sessions', 201, createReq);
    const cancelReq = { intent_trace: { reason_code: 'price_sensitivity', trace_summary: 'Too pricey.' } };
    c.check(CO, 'CancelSessionRequest', cancelReq, 'cancel request');
    c.check(
      CO,
      'CheckoutSession',
      await c.acp('POST', `/checkout_sessions/${other.id}/cancel`, 200, cancelReq),
      'POST /checkout_sessions/{id}/cancel',
    );
    c.check(
      CO,
      'Error',
      await c.acp('POST', `/checkout_sessions/${other.id}/cancel`, 405, {}),
      'cancel of a canceled session',
    );
    c.check(CO, 'Error', await c.acp('GET', '/checkout_sessions/cs_unknown', 404), 'GET of an unknown session');
    c.check(
      CO,
      'Error',
      await c.acp('POST', '/checkout_sessions', 400, { ...createReq, coupons: ['X'] }),
      'create with an unknown field',
    );
    c.check(
      CO,
      'Error',
      await c.acp('POST', '/checkout_sessions', 401, createReq, { authorization: '' }),
      'create without credentials',
    );
  },
};

/**
 * The product feed (docs/discovery.md): the demo shop's feed (the embedded start seeds it, discoverable) and this
 * run's own shop made discoverable with a tier on sale and one not on sale yet, read anonymously: `products.json`
 * against `schema.feed.json#/$defs/ProductsResponse`, each product against `#/$defs/Product` (the `products.jsonl`
 * form) and `metadata.json` against `#/$defs/FeedMetadata`.
 */
const feedFlow: Flow = {
  name: 'product feed: the demo shop and a discoverable shop, ProductsResponse, Product and FeedMetadata',
  async run(c) {
    const FEED = 'schema.feed.json';
    await c.rest('PATCH', `/v1/integration/shops/${c.shopId}`, 200, {
      discoverable: true,
      description: 'Conformance concerts',
    });
    const startsAt = new Date(Date.now() + 40 * 86_400_000).toISOString();
    const event = await c.rest('POST', '/v1/integration/events', 201, {
      merchantId: c.shopId,
      title: 'Feed Night',
      venue: 'Hall 1',
      startsAt,
    });
    const pool = await c.rest('POST', '/v1/integration/pools', 201, {
      merchantId: c.shopId,
      eventId: event.id,
      capacity: 20,
    });
    await c.rest('POST', '/v1/integration/tiers', 201, {
      eventId: event.id,
      poolId: pool.id,
      name: 'Standing',
      priceMinor: 3000,
    });
    const later = new Date(Date.now() + 10 * 86_400_000).toISOString();
    await c.rest('POST', '/v1/integration/tiers', 201, {
      eventId: event.id,
      poolId: pool.id,
      name: 'Late release',
      priceMinor: 4500,
      onSaleStart: later,
    });

    const directory = await c.anon('/v1/discovery/shops', 200);
    const demo = (directory.shops as { id: string; name: string }[]).find((s) => s.name === 'Demo Arena');
    const shops = [
      ...(demo ? [{ id: demo.id, label: 'the demo shop' }] : []),
      { id: c.shopId, label: 'the conformance shop' },
    ];
    if (!demo && !process.env.DATABASE_URL) throw new Error('the embedded start seeded no discoverable demo shop');
    for (const shop of shops) {
      const products = await c.anon(`/v1/discovery/shops/${shop.id}/feed`, 200);
      c.check(FEED, 'ProductsResponse', products, `products.json of ${shop.label}`);
      if (!Array.isArray(products.products) || products.products.length === 0)
        throw new Error(`the feed of ${shop.label} has no products`);
      for (const product of products.products)
        c.check(FEED, 'Product', product, `a products.jsonl line of ${shop.label} (${product.id})`);
      c.check(
        FEED,
        'FeedMetadata',
        await c.anon(`/v1/discovery/shops/${shop.id}/feed/metadata`, 200),
        `metadata.json of ${shop.label}`,
      );
    }
  },
};

/** Every check this command runs. */
const discountFlow: Flow = {
  name: 'discount code: a session with discounts.codes (one applied, one rejected), complete, order_create',
  async run(c) {
    const CO = 'schema.agentic_checkout.json';
    const startsAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const event = await c.rest('POST', '/v1/integration/events', 201, {
      merchantId: c.shopId,
      title: 'Discount Night',
      startsAt,
    });
    const pool = await c.rest('POST', '/v1/integration/pools', 201, {
      merchantId: c.shopId,
      eventId: event.id,
      capacity: 5,
    });
    const tier = await c.rest('POST', '/v1/integration/tiers', 201, {
      eventId: event.id,
      poolId: pool.id,
      name: 'Balcony',
      priceMinor: 4000,
    });
    await c.rest('POST', '/v1/integration/discount-codes', 201, {
      merchantId: c.shopId,
      code: 'SAVE20',
      kind: 'percent',
      percentOff: 20,
    });
    const createReq = {
      currency: 'usd',
      line_items: [{ id: tier.id }],
      capabilities: {},
      discounts: { codes: ['save20', 'NOSUCHCODE'] },
    };
    c.check(CO, 'CheckoutSessionCreateRequest', createReq, 'create request with discounts.codes');
    const created = await c.acp('POST', '/checkout_sessions', 201, createReq);
    c.check(CO, 'CheckoutSession', created, 'POST /checkout_sessions (a discount code)');
    const total = created.totals.find((t: { type: string }) => t.type === 'total').amount as number;
    if (created.discounts?.applied?.[0]?.amount !== 800 || created.discounts.rejected.length !== 1 || total !== 3200)
      throw new Error(`discount code: expected 800 off (total 3200) and one rejected, got ${JSON.stringify(created)}`);
    const updateReq = { discounts: { codes: ['SAVE20'] } };
    c.check(CO, 'CheckoutSessionUpdateRequest', updateReq, 'update request with discounts.codes');
    const updated = await c.acp('POST', `/checkout_sessions/${created.id}`, 200, updateReq);
    c.check(CO, 'CheckoutSession', updated, 'POST /checkout_sessions/{id} (discounts.codes replaced)');
    const token = await c.acp('POST', '/agentic_commerce/delegate_payment', 201, {
      payment_method: {
        type: 'card',
        card_number_type: 'fpan',
        number: '4242424242424242',
        exp_month: '11',
        exp_year: '2099',
        display_card_funding_type: 'credit',
        metadata: {},
      },
      allowance: {
        reason: 'one_time',
        max_amount: total,
        currency: 'usd',
        checkout_session_id: created.id,
        merchant_id: c.shopId,
        expires_at: '2099-01-01T00:00:00Z',
      },
      risk_signals: [],
      metadata: {},
    });
    const done = await c.acp('POST', `/checkout_sessions/${created.id}/complete`, 200, {
      payment_data: {
        handler_id: 'card_tokenized',
        instrument: { type: 'card', credential: { type: 'spt', token: token.id } },
      },
    });
    c.check(CO, 'CheckoutSession', done, 'POST /checkout_sessions/{id}/complete (a discount code)');
    const placed = JSON.parse((await c.receiver.next()).body);
    if (placed.type !== 'order_create') throw new Error(`discount code: expected order_create, got ${placed.type}`);
    c.checkWebhook(placed, 'order_create (a discount code)');
  },
};

const FLOWS: Flow[] = [checkoutFlow, orderWebhookFlow, twoLineFlow, discountFlow, feedFlow];

/** `tessera serve` on a free port; resolves with its URL. */
async function startServer(env: NodeJS.ProcessEnv): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [CLI, 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`the server did not start in 120 s: ${err.trim()}`)), 120_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Tessera is running at (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        ok(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`the server exited with ${code}: ${err.trim()}`));
    });
  });
  return { url, child };
}

async function call(
  url: string,
  method: string,
  path: string,
  want: number,
  body: unknown,
  headers: Record<string, string>,
): Promise<any> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: Object.fromEntries(
      Object.entries({ 'content-type': 'application/json', ...headers }).filter(([, v]) => v !== ''),
    ),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== want)
    throw new Error(`${method} ${path}: expected ${want}, got ${res.status}: ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : undefined;
}

async function main(): Promise<number> {
  const dir = schemaDir(process.argv[2]);
  const validator = validators(dir);
  const dataDir = process.env.DATABASE_URL ? undefined : mkdtempSync(join(tmpdir(), 'tessera-conformance-'));
  if (dataDir) chmodSync(dataDir, 0o755);
  const env = {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '100000',
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    ...(dataDir ? { TESSERA_DATA_DIR: dataDir } : {}),
  };
  let server: ChildProcess | undefined;
  const receiver = await startReceiver();
  const checkWebhook = webhookValidator(dir);
  let valid = 0;
  let invalid = 0;
  let broken = 0;
  try {
    const started = await startServer(env);
    server = started.child;
    // A merchant of our own (the embedded server is shared with this second process while `serve` runs).
    const boot = spawnSync(
      process.execPath,
      [
        CLI,
        'bootstrap',
        '--org',
        'ACP Conformance',
        '--email',
        `conformance-${randomUUID()}@example.test`,
        '--shop',
        'Conformance Shop',
        '--currency',
        'USD',
        '--json',
      ],
      {
        cwd: ROOT,
        env,
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    if (boot.status !== 0) throw new Error(`bootstrap failed: ${boot.stderr.trim()}`);
    const { apiKey, shopId } = JSON.parse(boot.stdout) as { apiKey: string; shopId: string };
    const ctx: Ctx = {
      url: started.url,
      apiKey,
      shopId,
      check(bundle, def, body, label) {
        const validate = validator(bundle, def);
        if (validate(body)) {
          valid++;
          return;
        }
        invalid++;
        process.stderr.write(
          `invalid ${def} (${bundle}) — ${label}: ${JSON.stringify(validate.errors?.slice(0, 5))}\n  body: ${JSON.stringify(body)}\n`,
        );
      },
      acp: (method, path, want, body, headers = {}) =>
        call(started.url, method, path, want, body, {
          authorization: `Bearer ${apiKey}`,
          'api-version': ACP_VERSION,
          ...(method === 'POST' ? { 'idempotency-key': randomUUID() } : {}),
          ...headers,
        }),
      rest: (method, path, want, body, headers = {}) =>
        call(started.url, method, path, want, body, { authorization: `Bearer ${apiKey}`, ...headers }),
      receiver,
      checkWebhook(body, label) {
        if (checkWebhook(body)) {
          valid++;
          return;
        }
        invalid++;
        process.stderr.write(
          `invalid WebhookEvent (openapi.agentic_checkout_webhook.yaml) — ${label}: ${JSON.stringify(checkWebhook.errors?.slice(0, 5))}\n  body: ${JSON.stringify(body)}\n`,
        );
      },
      anon: (path, want) => call(started.url, 'GET', path, want, undefined, {}),
    };
    for (const flow of FLOWS) {
      try {
        await flow.run(ctx);
      } catch (err) {
        broken++;
        process.stderr.write(`flow "${flow.name}" broke: ${(err as Error).message}\n`);
      }
    }
  } finally {
    if (server && server.exitCode === null) {
      const exited = new Promise((ok) => server!.once('exit', ok));
      server.kill('SIGTERM');
      await exited;
    }
    await receiver.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
  process.stdout.write(
    `acp conformance: ${valid} bodies valid, ${invalid} invalid${broken ? `, ${broken} of ${FLOWS.length} flows broke` : ''}\n`,
  );
  return invalid === 0 && broken === 0 && valid > 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`acp conformance: ${(err as Error).message}\n`);
    process.exit(2);
  },
);
