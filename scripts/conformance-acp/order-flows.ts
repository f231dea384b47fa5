/**
 * The ACP conformance run's flows that end in an order: the order webhooks, a session of two line items, and one with
 * discount codes; each validates the webhook bodies the server sends to the local receiver.
 */
import { randomUUID } from 'node:crypto';
import type { Ctx, Flow } from './context.ts';
import { merchantSignatureValid, WEBHOOK_SECRET } from './webhooks.ts';

/** order_create and order_update webhooks, signed and valid. */
export const orderWebhookFlow: Flow = {
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
    const done = await payWithTestCard(c, created.id, total);
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

/** A session of two line items through to its order webhook and a refund of one line. */
export const twoLineFlow: Flow = {
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
    const done = await payWithTestCard(c, created.id, total);
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

/** A session with discount codes (one applied, one rejected) through to its order webhook; then one of two items. */
export const discountFlow: Flow = {
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
    const done = await payWithTestCard(c, created.id, total);
    c.check(CO, 'CheckoutSession', done, 'POST /checkout_sessions/{id}/complete (a discount code)');
    const placed = JSON.parse((await c.receiver.next()).body);
    if (placed.type !== 'order_create') throw new Error(`discount code: expected order_create, got ${placed.type}`);
    c.checkWebhook(placed, 'order_create (a discount code)');
    // Two line items: the code applies to both, its amount allocated to each item.
    const box = await c.rest('POST', '/v1/integration/tiers', 201, {
      eventId: event.id,
      poolId: pool.id,
      name: 'Box',
      priceMinor: 6000,
    });
    const twoReq = {
      currency: 'usd',
      line_items: [{ id: tier.id }, { id: box.id }],
      capabilities: {},
      discounts: { codes: ['SAVE20'] },
    };
    c.check(CO, 'CheckoutSessionCreateRequest', twoReq, 'create request with two items and discounts.codes');
    const two = await c.acp('POST', '/checkout_sessions', 201, twoReq);
    c.check(CO, 'CheckoutSession', two, 'POST /checkout_sessions (two items, a discount code)');
    if (two.discounts?.applied?.[0]?.amount !== 2000 || two.discounts.applied[0].allocations.length !== 2)
      throw new Error(`discount code: expected 2000 off over two items, got ${JSON.stringify(two.discounts)}`);
  },
};

/** Delegates the Visa test card for `amount` to session `id` and completes the session with its token. */
async function payWithTestCard(c: Ctx, id: string, amount: number) {
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
      max_amount: amount,
      currency: 'usd',
      checkout_session_id: id,
      merchant_id: c.shopId,
      expires_at: '2099-01-01T00:00:00Z',
    },
    risk_signals: [],
    metadata: {},
  });
  return c.acp('POST', `/checkout_sessions/${id}/complete`, 200, {
    payment_data: {
      handler_id: 'card_tokenized',
      instrument: { type: 'card', credential: { type: 'spt', token: token.id } },
    },
  });
}
