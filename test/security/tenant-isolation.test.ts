/**
 * No tenant reaches another (issue #10, finding 2), on every surface: a bounded buyer session minted by one
 * organization reads, lists and releases only purchases at its own shop (issue #32: a `merchantId` filter naming
 * another shop is 404), even for a buyer (same e-mail) who bought elsewhere; agents and full buyer sessions read the
 * catalog of discoverable shops and of shops they hold a permission at, nothing else; and a refusal never names another
 * organization's shop (the same 404 as a missing object).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SURFACES } from '../support/surfaces.ts';
import { buyerWithAgent, createAgent, key, merchantShop, must, newEmail, signIn } from '../support/buyers.ts';
import { worldPerFile } from '../support/world-per-file.ts';
import { restClient } from '../support/rest.ts';

const w = worldPerFile();

const mint = async (apiKey: string, merchantId: string, email: string) =>
  must(await restClient(w.h.url, apiKey).post('/v1/integration/buyer-sessions', { merchantId, email }), 201)
    .token as string;

for (const surface of SURFACES) {
  test(`a bounded session from one organization reads and releases nothing at another's shop, over ${surface.name}`, async () => {
    const email = newEmail();
    const victim = await merchantShop(w.h);
    const attacker = await merchantShop(w.h);
    // The buyer buys at the victim's shop and keeps a second hold there.
    const theirs = restClient(w.h.url, await mint(victim.apiKey, victim.shopId, email));
    const q = must(await theirs.post('/v1/ticketing/quotes', { tierId: victim.tierId, quantity: 1 }), 201);
    const r = must(await theirs.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key()), 201);
    const paid = must(
      await theirs.post(
        `/v1/ticketing/reservations/${r.reservation.id}/confirm`,
        { paymentMethod: 'pm_sandbox_visa' },
        key(),
      ),
      200,
    );
    const q2 = must(await theirs.post('/v1/ticketing/quotes', { tierId: victim.tierId, quantity: 1 }), 201);
    const held = must(await theirs.post('/v1/ticketing/reservations', { quoteId: q2.quoteId }, key()), 201);

    // Another organization mints a session for the same e-mail at its own shop.
    const conn = await surface.connect(w.h, await mint(attacker.apiKey, attacker.shopId, email));
    try {
      const reads: [string, Record<string, unknown>][] = [
        ['get_order', { id: paid.order.id }],
        ['get_payment', { id: paid.payment.id }],
        ['get_reservation', { id: r.reservation.id }],
        ['release', { id: held.reservation.id }],
      ];
      for (const [tool, input] of reads) {
        const out = await conn.call(tool, input);
        assert.equal(!out.ok && out.code, 'not_found', `${tool}: ${JSON.stringify(out)}`);
      }
    } finally {
      await conn.done();
    }
    // The hold is still there, and its owner still reads it.
    const still = must(await theirs.get(`/v1/ticketing/reservations/${held.reservation.id}`), 200);
    assert.equal(still.reservation.state, 'held');
  });
}

for (const surface of SURFACES) {
  const name =
    "a bounded session from one organization lists none of the buyer's orders at another's shop, whatever filter it names";
  test(`${name}, over ${surface.name}`, async () => {
    const email = newEmail();
    const victim = await merchantShop(w.h);
    const attacker = await merchantShop(w.h);
    const theirs = restClient(w.h.url, await mint(victim.apiKey, victim.shopId, email));
    const q = must(await theirs.post('/v1/ticketing/quotes', { tierId: victim.tierId, quantity: 2 }), 201);
    const r = must(await theirs.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key()), 201);
    const confirmPath = `/v1/ticketing/reservations/${r.reservation.id}/confirm`;
    const paid = must(await theirs.post(confirmPath, { paymentMethod: 'pm_sandbox_visa' }, key()), 200);
    type Issued = { id: string; code: string; signedCode: string };
    const codes = paid.order.tickets.flatMap((t: Issued) => [t.id, t.code, t.signedCode]);
    const secrets = [paid.order.id, paid.payment.id, ...codes];

    // Another organization mints a session for the same e-mail at its own shop and names the victim's shop or event.
    const conn = await surface.connect(w.h, await mint(attacker.apiKey, attacker.shopId, email));
    try {
      const named = await conn.call('list_orders', { merchantId: victim.shopId });
      assert.equal(!named.ok && named.code, 'not_found', `another's shop: ${JSON.stringify(named).slice(0, 300)}`);
      const lists: [string, Record<string, unknown>][] = [
        ['list_orders', { eventId: victim.eventId }],
        ['list_orders', {}],
        ['list_my_tickets', {}],
      ];
      for (const [tool, input] of lists) {
        const out = await conn.call(tool, input);
        assert.ok(out.ok, `${tool} ${JSON.stringify(input)}: ${JSON.stringify(out).slice(0, 300)}`);
        assert.deepEqual(out.output.orders, [], `${tool} ${JSON.stringify(input)} lists another organization's orders`);
        const leaked = secrets.filter((x) => JSON.stringify(out.output).includes(x));
        assert.deepEqual(leaked, [], `${tool} ${JSON.stringify(input)}`);
      }
    } finally {
      await conn.done();
    }
    // The session the victim's shop minted still lists them, with the filter naming its own shop.
    const own = must(await theirs.get(`/v1/ticketing/orders?merchantId=${victim.shopId}`), 200);
    assert.deepEqual(
      own.orders.map((o: { id: string }) => o.id),
      [paid.order.id],
    );
  });
}

test('an agent and a full buyer session without a shop read only discoverable shops and shops they hold a permission at', async () => {
  const hidden = await merchantShop(w.h);
  const mine = await merchantShop(w.h);
  const s = await buyerWithAgent(w, mine);
  const email = newEmail();
  const full = await signIn(w, email);
  const { token: lone } = await createAgent(w, full, email);
  for (const surface of SURFACES) {
    for (const [who, token] of [
      ['agent', s.agentToken],
      ['agent without permission', lone],
      ['full session without a shop', full],
    ] as const) {
      const conn = await surface.connect(w.h, token);
      try {
        for (const [tool, input] of [
          ['get_shop', { id: hidden.shopId }],
          ['list_events', { id: hidden.shopId }],
          ['get_event', { id: hidden.eventId }],
        ] as const) {
          const out = await conn.call(tool, input);
          assert.equal(
            !out.ok && out.code,
            'not_found',
            `${surface.name} ${who} ${tool}: ${JSON.stringify(out).slice(0, 200)}`,
          );
        }
      } finally {
        await conn.done();
      }
    }
    const conn = await surface.connect(w.h, s.agentToken);
    try {
      const out = await conn.call('get_shop', { id: mine.shopId });
      assert.ok(out.ok, `${surface.name}: an agent reads the shop of its permission: ${JSON.stringify(out)}`);
    } finally {
      await conn.done();
    }
  }
});

test("an agent refused at another organization's shop gets the same 404 as a missing object, naming nothing else", async () => {
  const mine = await merchantShop(w.h);
  const other = await merchantShop(w.h);
  const s = await buyerWithAgent(w, mine);
  const agent = restClient(w.h.url, s.agentToken);
  const q = must(await agent.post('/v1/ticketing/quotes', { tierId: other.tierId, quantity: 1 }), 201);
  const res = await agent.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key());
  assert.equal(res.status, 404, JSON.stringify(res.body));
  assert.equal(res.body.code, 'not_found');
  const missing = await agent.get('/v1/catalog/shops/shop_missing');
  assert.deepEqual(Object.keys(res.body).sort(), Object.keys(missing.body).sort());
});
