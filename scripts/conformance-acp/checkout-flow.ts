/**
 * The ACP conformance run's checkout flow: discovery, a session created, retrieved, updated, paid with a delegated
 * payment token, completed and cancelled, and the errors ACP defines.
 */
import type { Flow } from './context.ts';

/** The checkout flow, including its refusals (schema.agentic_checkout.json, schema.delegate_payment.json). */
export const checkoutFlow: Flow = {
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
