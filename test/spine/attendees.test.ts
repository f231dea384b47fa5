/**
 * Attendees and questions (issue #37 item 3): a tier asks each ticket's attendee name and a choice question; answers
 * come at reserve and at confirm; a confirm still missing some is refused with exactly which places and questions;
 * the answers show on the tickets, in get_order, the check-in list, a door scan and the tickets export; an MCP host
 * with tool arguments only gives them too.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { callTool, mcpInMemory } from '../support/mcp.ts';
import { key, must, shopWithTier, startSpineHarness, type Shop } from '../support/spine.ts';

let h: Harness;
let s: Shop;
before(async () => {
  h = await startSpineHarness();
  s = await shopWithTier(h, { capacity: 10, restrictions: { attendeeForm: FORM } });
});
after(() => h?.close());

const FORM = {
  name: 'required',
  questions: [
    { id: 'diet', label: 'Meal', kind: 'choice', options: ['none', 'vegetarian', 'vegan'], required: true },
    { id: 'newsletter', label: 'Newsletter?', kind: 'boolean', required: false },
  ],
};

interface Ticket {
  id: string;
  signedCode: string;
  attendeeName?: string;
  answers?: Record<string, unknown>;
}

async function quote(quantity: number) {
  return must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity }), 201);
}

test('reserve with some answers; confirm refused naming exactly what is missing; confirmed with the rest', async () => {
  const tier = must(await s.api.get(`/v1/catalog/events/${s.eventId}`), 200).tiers[0];
  assert.deepEqual(tier.attendeeForm, FORM);
  const q = await quote(2);
  assert.deepEqual(q.attendeeQuestions, [{ tierId: s.tierId, attendeeName: 'required', questions: FORM.questions }]);

  // An answer outside the options, and a question the tier does not ask, are refused before anything is held.
  const bad = await s.api.post(
    '/v1/ticketing/reservations',
    { quoteId: q.quoteId, attendees: [{ tierId: s.tierId, index: 0, answers: { diet: 'pizza' } }] },
    key(),
  );
  assert.equal(bad.status, 422);
  assert.equal(bad.body.code, 'invalid_answer');
  assert.deepEqual(bad.body.details, { tierId: s.tierId, index: 0, questionId: 'diet', reason: 'not_an_option' });
  const unknown = await s.api.post(
    '/v1/ticketing/reservations',
    { quoteId: q.quoteId, attendees: [{ tierId: s.tierId, index: 1, answers: { shoe: '42' } }] },
    key(),
  );
  assert.equal(unknown.body.code, 'invalid_answer');
  assert.equal(unknown.body.details.reason, 'unknown_question');

  const first = [{ tierId: s.tierId, index: 0, name: 'Ada Lovelace', answers: { diet: 'vegan' } }];
  const r = must(await s.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId, attendees: first }, key()), 201);
  const id = r.reservation.id;

  const refused = await s.api.post(
    `/v1/ticketing/reservations/${id}/confirm`,
    { paymentMethod: 'pm_sandbox_visa' },
    key(),
  );
  assert.equal(refused.status, 422);
  assert.equal(refused.body.code, 'attendee_answers_missing');
  assert.deepEqual(refused.body.details.missing, [{ tierId: s.tierId, index: 1, name: true, questionIds: ['diet'] }]);
  assert.equal(must(await s.api.get(`/v1/ticketing/reservations/${id}`), 200).reservation.state, 'held');

  const wrongChoice = await s.api.post(
    `/v1/ticketing/reservations/${id}/confirm`,
    { paymentMethod: 'pm_sandbox_visa', attendees: [{ tierId: s.tierId, index: 1, answers: { diet: ['vegan'] } }] },
    key(),
  );
  assert.equal(wrongChoice.body.code, 'invalid_answer');

  const rest = [{ tierId: s.tierId, index: 1, name: 'Grace Hopper', answers: { diet: 'none', newsletter: true } }];
  const done = must(
    await s.api.post(
      `/v1/ticketing/reservations/${id}/confirm`,
      { paymentMethod: 'pm_sandbox_visa', attendees: rest },
      key(),
    ),
    200,
  );
  const tickets = done.order.tickets as Ticket[];
  assert.deepEqual(
    tickets.map((t) => [t.attendeeName, t.answers]),
    [
      ['Ada Lovelace', { diet: 'vegan' }],
      ['Grace Hopper', { diet: 'none', newsletter: true }],
    ],
  );
  await assertInvariant(h.db, s.poolId);

  // get_order shows them.
  const order = must(await s.api.get(`/v1/ticketing/orders/${done.order.id}`), 200);
  assert.deepEqual(
    (order.tickets as Ticket[]).map((t) => t.attendeeName),
    ['Ada Lovelace', 'Grace Hopper'],
  );

  // The check-in list and a door scan show the name.
  const list = must(await s.api.get(`/v1/ticketing/events/${s.eventId}/check-in-list`), 200);
  const names = new Map(
    (list.tickets as { ticketId: string; attendeeName?: string }[]).map((t) => [t.ticketId, t.attendeeName]),
  );
  assert.equal(names.get(tickets[0]!.id), 'Ada Lovelace');
  assert.equal(names.get(tickets[1]!.id), 'Grace Hopper');
  const scan = must(
    await s.api.post(`/v1/ticketing/events/${s.eventId}/check-ins`, { code: tickets[1]!.signedCode, device: 'gate-1' }),
    200,
  );
  assert.equal(scan.ticket.attendeeName, 'Grace Hopper');

  // The tickets export has the attendee's name and one column per question.
  const link = must(await s.api.post('/v1/ticketing/exports', { merchantId: s.shopId, kind: 'tickets' }), 201);
  const csv = (await (await fetch(link.downloadUrl)).text()).replace(/^\uFEFF/, '');
  const [header, ...rows] = csv.trim().split(/\r?\n/);
  const columns = header!.split(',');
  assert.deepEqual(columns.slice(-3), ['attendee_name', 'answer_diet', 'answer_newsletter']);
  const byTicket = new Map(rows.map((row) => [row.split(',')[0], row.split(',').slice(-3)]));
  assert.deepEqual(byTicket.get(tickets[0]!.id), ['Ada Lovelace', 'vegan', '']);
  assert.deepEqual(byTicket.get(tickets[1]!.id), ['Grace Hopper', 'none', 'yes']);
});

test('an MCP host with tool arguments only gives attendee names and answers at reserve', async () => {
  const mcp = await mcpInMemory(h, s.apiKey);
  try {
    const q = await callTool(mcp, 'quote', { tierId: s.tierId, quantity: 1 });
    assert.ok(q.ok);
    const quoteOut = q.output as { quoteId: string; attendeeQuestions: unknown[] };
    assert.equal(quoteOut.attendeeQuestions.length, 1);
    const attendees = [{ tierId: s.tierId, index: 0, name: 'Katherine Johnson', answers: { diet: 'vegetarian' } }];
    const r = await callTool(mcp, 'reserve', { quoteId: quoteOut.quoteId, attendees, idempotencyKey: randomUUID() });
    assert.ok(r.ok, JSON.stringify(r));
    const id = (r.output as { reservation: { id: string } }).reservation.id;
    const c = await callTool(mcp, 'confirm', { id, paymentMethod: 'pm_sandbox_visa', idempotencyKey: randomUUID() });
    assert.ok(c.ok, JSON.stringify(c));
    const [ticket] = (c.output as { order: { tickets: Ticket[] } }).order.tickets;
    assert.equal(ticket!.attendeeName, 'Katherine Johnson');
    assert.deepEqual(ticket!.answers, { diet: 'vegetarian' });
  } finally {
    await mcp.close();
  }
});

test('a purchase of two tiers counts each tier’s places from 0 and gives each ticket its own attendee', async () => {
  const named = must(
    await s.api.post('/v1/integration/tiers', {
      eventId: s.eventId,
      poolId: s.poolId,
      name: 'Balcony',
      priceMinor: 3000,
      attendeeForm: { name: 'required', questions: [] },
    }),
    201,
  );
  const lines = [
    { tierId: s.tierId, quantity: 1 },
    { tierId: named.id, quantity: 2 },
  ];
  const q = must(await s.api.post('/v1/ticketing/quotes', { lines }), 201);
  assert.deepEqual(
    (q.attendeeQuestions as { tierId: string }[]).map((x) => x.tierId),
    [s.tierId, named.id],
  );
  const attendees = [
    { tierId: s.tierId, index: 0, name: 'Ada', answers: { diet: 'none' } },
    { tierId: named.id, index: 0, name: 'Grace' },
    { tierId: named.id, index: 1, name: 'Katherine' },
  ];
  const r = must(await s.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId, attendees }, key()), 201);
  const done = must(
    await s.api.post(
      `/v1/ticketing/reservations/${r.reservation.id}/confirm`,
      { paymentMethod: 'pm_sandbox_visa' },
      key(),
    ),
    200,
  );
  const byTier = (tierId: string) =>
    (done.order.tickets as (Ticket & { tierId: string })[])
      .filter((t) => t.tierId === tierId)
      .map((t) => t.attendeeName);
  assert.deepEqual(byTier(s.tierId), ['Ada']);
  assert.deepEqual(byTier(named.id), ['Grace', 'Katherine']);
  await assertInvariant(h.db, s.poolId);
});
