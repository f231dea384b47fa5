/**
 * The domain's caps on what grows with use (issue #36, src/domain/limits.ts): each refused past its cap with
 * `limit_reached` (or `too_many_payment_attempts`) over REST, and the reads that page instead. Rows up to a cap are
 * copied in SQL from one made through the API (`copies`), so a cap of 500 costs one statement, not 500 calls.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as LIMITS from '../../src/domain/limits.ts';
import { OVERVIEW_EVENTS_PAGE } from '../../src/domain/purchase/sales-overview.ts';
import { VOID_LIST_PAGE } from '../../src/domain/check-in/voided-list.ts';
import { MAX_EVENT_DATA, maxDeliveryBody } from '../../src/kernel/event-data.ts';
import { UNBOUNDED } from '../../src/rest/openapi-bounds.ts';
import { emitEvent } from '../../src/webhooks/outbox.ts';
import { closedPortUrl } from '../support/webhook-receiver.ts';
import { restClient, type RestResponse } from '../support/rest.ts';
import { copyRows, type CopyOptions } from '../support/row-copies.ts';
import {
  codeFor,
  createAgent,
  key,
  merchantShop,
  must,
  newEmail,
  saveCard,
  signIn,
  startWorld,
  type World,
} from '../support/buyers.ts';

let w: World;
before(async () => {
  w = await startWorld({ WEBHOOK_ALLOW_LOOPBACK: 'true' });
});
after(async () => {
  await w?.close();
});

const copies = (table: string, id: string, n: number, opts?: CopyOptions) => copyRows(w.h.db, table, id, n, opts);

/** Asserts a refusal at `limit` of the cap `what`. */
function refused(res: RestResponse, limit: number, what: string, code = 'limit_reached') {
  assert.equal(res.status, 409, JSON.stringify(res.body));
  assert.equal(res.body.code, code);
  assert.equal(res.body.details.limit, limit);
  if (code === 'limit_reached') assert.equal(res.body.details.what, what);
}

/** A console bearer for the owner of `organizationId`. */
async function owner(organizationId: string) {
  const [row] = await w.h.db.execute<{ user_id: string }>(
    `select user_id from memberships where organization_id = ? and role = 'owner'`,
    [organizationId],
  );
  const claims = { typ: 'console', sub: row!.user_id, org: organizationId, role: 'owner' } as const;
  return { userId: row!.user_id, api: restClient(w.h.url, await w.h.app.authenticator.sign(claims, 3600)) };
}

test('an event takes at most 200 tiers and 100 pools of its own; get_event lists every tier', async () => {
  const s = await merchantShop(w.h);
  await copies('tiers', s.tierId, LIMITS.MAX_TIERS_PER_EVENT - 1);
  const tier = { eventId: s.eventId, poolId: s.poolId, name: 'One more', priceMinor: 100 };
  refused(await s.api.post('/v1/integration/tiers', tier), LIMITS.MAX_TIERS_PER_EVENT, 'tiers_per_event');
  const event = must(await s.api.get(`/v1/catalog/events/${s.eventId}`), 200);
  assert.equal(event.tiers.length, LIMITS.MAX_TIERS_PER_EVENT);
  await copies('pools', s.poolId, LIMITS.MAX_POOLS_PER_EVENT - 1);
  const pool = { merchantId: s.shopId, eventId: s.eventId, capacity: 5 };
  refused(await s.api.post('/v1/integration/pools', pool), LIMITS.MAX_POOLS_PER_EVENT, 'pools_per_event');
  // A pool of no event is not an event's.
  must(await s.api.post('/v1/integration/pools', { merchantId: s.shopId, capacity: 5 }), 201);
});

test('a buyer keeps at most 200 agents, 100 cards and 500 live permissions; the lists show every live one', async () => {
  const s = await merchantShop(w.h);
  const email = newEmail();
  const session = await signIn(w, email, s.shopId);
  const api = restClient(w.h.url, session);
  const card = await saveCard(w, session, email);
  const { agent } = await createAgent(w, session, email);
  // Agents `<id>-1` … `<id>-198` and `<id>-z`: 200 in all.
  await copies('agents', agent.id, LIMITS.MAX_AGENTS_PER_BUYER - 2, { unique: ['token_hash'] });
  await copies('agents', agent.id, 1, {
    set: `jsonb_build_object('id', t.id || '-z', 'token_hash', t.token_hash || '-z')`,
  });
  const agentProof = await codeFor(w, session, email, 'create_agent');
  refused(
    await api.post('/v1/buyer/agents', { name: 'One more', ...agentProof }),
    LIMITS.MAX_AGENTS_PER_BUYER,
    'agents_per_buyer',
  );
  assert.equal(must(await api.get('/v1/buyer/agents'), 200).agents.length, LIMITS.MAX_AGENTS_PER_BUYER);

  const [saved] = await w.h.db.execute<{ setup_id: string }>('select setup_id from instruments where id = ?', [
    card.id,
  ]);
  await copies('card_setups', saved!.setup_id, LIMITS.MAX_CARDS_PER_BUYER - 1, { unique: ['instrument_id'] });
  await copies('instruments', card.id, LIMITS.MAX_CARDS_PER_BUYER - 1, { unique: ['setup_id'] });
  const setup = must(await api.post('/v1/buyer/card-setups', {}), 201);
  must(await api.post(`/v1/buyer/card-setups/${setup.setupId}/complete`, { paymentMethod: 'pm_sandbox_visa' }), 200);
  const cardProof = await codeFor(w, session, email, 'save_card');
  const save = { setupId: setup.setupId, spendingCapMinor: 1000, ...cardProof };
  refused(await api.post('/v1/buyer/instruments', save), LIMITS.MAX_CARDS_PER_BUYER, 'cards_per_buyer');
  assert.equal(must(await api.get('/v1/buyer/instruments'), 200).instruments.length, LIMITS.MAX_CARDS_PER_BUYER);

  const expiresAt = new Date(w.h.clock.now().getTime() + 7 * 86_400_000).toISOString();
  const limits = { perPurchaseCapMinor: 1000, allowanceMinor: 2000, windowHours: 24, expiresAt };
  const grant = async (agentId: string) => {
    const proof = await codeFor(w, session, email, 'grant_permission');
    return api.post('/v1/buyer/permissions', { agentId, instrumentId: card.id, ...limits, ...proof });
  };
  const first = must(await grant(agent.id), 201);
  const permissionId: string = first.permission?.id ?? first.id;
  // 499 more live ones on the copied agents (500 in all), and 50 revoked ones newer than all of them.
  await copies('permissions', permissionId, LIMITS.MAX_PERMISSIONS_PER_BUYER - 1, {
    set: `jsonb_build_object('agent_id', t.agent_id || '-' || ((g - 1) % 198 + 1))`,
  });
  await copies('permissions', permissionId, 50, {
    set: `jsonb_build_object('revoked_at', t.created_at, 'revoked_reason', 'replaced', 'revoked_by', 'buyer',
            'created_at', t.created_at + interval '1 second', 'id', t.id || '-r' || g)`,
  });
  // A grant replaces its agent's live permission in the shop: the count stays, so it passes; a new agent's does not.
  must(await grant(agent.id), 201);
  refused(await grant(`${agent.id}-z`), LIMITS.MAX_PERMISSIONS_PER_BUYER, 'live_permissions_per_buyer');
  const listed = must(await api.get('/v1/buyer/permissions'), 200).permissions as { status: string }[];
  assert.equal(listed.length, LIMITS.MAX_PERMISSIONS_PER_BUYER);
  assert.equal(listed.filter((p) => p.status === 'active').length, LIMITS.MAX_PERMISSIONS_PER_BUYER);
});

test('an organization keeps at most 500 live API keys, 1,000 members and 100 open invitations; a user 100 organizations', async () => {
  const m = await w.h.merchant();
  const { userId, api } = await owner(m.organizationId);
  const [bootstrapKey] = await w.h.db.execute<{ id: string }>('select id from api_keys where organization_id = ?', [
    m.organizationId,
  ]);
  await copies('api_keys', bootstrapKey!.id, LIMITS.MAX_API_KEYS_PER_ORGANIZATION - 1, { unique: ['token_hash'] });
  await copies('api_keys', bootstrapKey!.id, 20, {
    set: `jsonb_build_object('id', t.id || '-r' || g, 'token_hash', t.token_hash || '-r' || g,
            'revoked_at', t.created_at, 'created_at', t.created_at + interval '1 second')`,
  });
  const newKey = { name: 'One more', scopes: ['merchant:read'] };
  refused(
    await api.post('/v1/console/api-keys', newKey),
    LIMITS.MAX_API_KEYS_PER_ORGANIZATION,
    'live_api_keys_per_organization',
  );
  const keys = must(await api.get('/v1/console/api-keys'), 200).apiKeys as { revokedAt: string | null }[];
  assert.equal(keys.length, LIMITS.MAX_API_KEYS_PER_ORGANIZATION);
  assert.ok(
    keys.every((k) => k.revokedAt === null),
    'every live key is listed, revoked ones after them',
  );

  // 1,000 members: the owner and 999 copies of them.
  const members = LIMITS.MAX_MEMBERS_PER_ORGANIZATION;
  await copies('users', userId, members - 1, { unique: ['email'] });
  await w.h.db.execute(
    `insert into memberships (user_id, organization_id, role, invited_by, created_at)
     select u.id, ?, 'integrator', null, now() from users u where u.id like ? || '-%'`,
    [m.organizationId, userId],
  );
  const invite = () => api.post('/v1/console/team/invitations', { email: newEmail(), role: 'integrator' });
  refused(await invite(), members, 'members_per_organization');
  assert.equal(must(await api.get('/v1/console/team'), 200).members.length, members);
  await w.h.db.execute(`delete from memberships where user_id = ? and organization_id = ?`, [
    `${userId}-1`,
    m.organizationId,
  ]);
  const first = must(await invite(), 201);
  await copies('team_invitations', first.id, LIMITS.MAX_OPEN_INVITATIONS - 1, { unique: ['token_hash', 'email'] });
  refused(await invite(), LIMITS.MAX_OPEN_INVITATIONS, 'open_invitations_per_organization');
  assert.equal(must(await api.get('/v1/console/team'), 200).invitations.length, LIMITS.MAX_OPEN_INVITATIONS);

  // The owner of another organization, already in 100, is invited here: accepting is refused.
  const other = await w.h.merchant();
  const { userId: otherOwner } = await owner(other.organizationId);
  await copies('organizations', other.organizationId, LIMITS.MAX_ORGANIZATIONS_PER_USER - 1);
  await w.h.db.execute(
    `insert into memberships (user_id, organization_id, role, invited_by, created_at)
     select ?, o.id, 'owner', null, now() from organizations o where o.id like ? || '-%'`,
    [otherOwner, other.organizationId],
  );
  await w.h.db.execute(`delete from team_invitations where id like ? || '-%'`, [first.id]);
  const [row] = await w.h.db.execute<{ email: string }>('select email from users where id = ?', [otherOwner]);
  must(await api.post('/v1/console/team/invitations', { email: row!.email, role: 'integrator' }), 201);
  const token = /\/console\/accept#token=([A-Za-z0-9_-]+)/.exec(w.box.last(row!.email).text)![1];
  const accepted = await restClient(w.h.url).post('/v1/console/team/invitations/accept', { token });
  refused(accepted, LIMITS.MAX_ORGANIZATIONS_PER_USER, 'organizations_per_user');
});

test('ticket-signing keys: rotation past 100 kept keys is refused, and the JWKS lists them all', async () => {
  const staff = restClient(w.h.url, await w.h.staffToken());
  const [active] = await w.h.db.execute<{ kid: string; n: number }>(
    `select kid, (select count(*)::int from ticket_signing_keys) as n from ticket_signing_keys where retired_at is null`,
  );
  await copies('ticket_signing_keys', active!.kid, LIMITS.MAX_TICKET_KEYS - active!.n, {
    pk: 'kid',
    set: `jsonb_build_object('retired_at', t.created_at)`,
  });
  refused(await staff.post('/v1/staff/ticket-keys/rotate', {}), LIMITS.MAX_TICKET_KEYS, 'ticket_signing_keys');
  const m = await merchantShop(w.h);
  assert.equal(must(await m.api.get('/v1/ticketing/ticket-keys'), 200).keys.length, LIMITS.MAX_TICKET_KEYS);
});

test('a reservation takes at most 20 payment attempts; an order’s tickets e-mail at most 50 resends', async () => {
  const s = await merchantShop(w.h);
  const quote = must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 }), 201);
  const held = must(await s.api.post('/v1/ticketing/reservations', { quoteId: quote.quoteId }, key()), 201);
  const id = held.reservation?.id ?? held.id;
  const pay = (paymentMethod: string) =>
    s.api.post(`/v1/ticketing/reservations/${id}/confirm`, { paymentMethod }, key());
  assert.equal((await pay('pm_sandbox_declined')).status, 402);
  const [declined] = await w.h.db.execute<{ id: string }>('select id from payments where reservation_id = ?', [id]);
  await copies('payments', declined!.id, LIMITS.MAX_PAYMENT_ATTEMPTS - 1, {
    unique: ['provider_reference'],
    set: `jsonb_build_object('attempt', t.attempt + g)`,
  });
  refused(await pay('pm_sandbox_visa'), LIMITS.MAX_PAYMENT_ATTEMPTS, '', 'too_many_payment_attempts');
  const view = must(await s.api.get(`/v1/ticketing/reservations/${id}`), 200);
  assert.equal(view.reservation.state, 'held');
  const [attempts] = await w.h.db.execute<{ n: number }>(
    'select count(*)::int as n from payments where reservation_id = ?',
    [id],
  );
  assert.equal(attempts!.n, LIMITS.MAX_PAYMENT_ATTEMPTS);

  // A paid order with a buyer's address; 50 resends queued long ago (none in the last hour).
  const again = must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 }), 201);
  const hold = must(await s.api.post('/v1/ticketing/reservations', { quoteId: again.quoteId }, key()), 201);
  const paid = await s.api.post(
    `/v1/ticketing/reservations/${hold.reservation?.id ?? hold.id}/confirm`,
    { paymentMethod: 'pm_sandbox_visa' },
    key(),
  );
  const orderId = must(paid, 200).order.id;
  const email = newEmail();
  await signIn(w, email);
  await w.h.db.execute('update orders set buyer_id = (select id from buyers where email = ?) where id = ?', [
    email,
    orderId,
  ]);
  await w.h.db.execute(
    `insert into order_mail (id, kind, order_id, refund_id, next_attempt_at, created_at, sent_at)
     select ? || g, 'resend', ?, null, ?::timestamptz, ?::timestamptz - interval '2 hours', ?::timestamptz
       from generate_series(1, ?) g`,
    [`${orderId}-mail-`, orderId, w.h.clock.now(), w.h.clock.now(), w.h.clock.now(), LIMITS.MAX_RESENDS_PER_ORDER],
  );
  const resend = await s.api.post(`/v1/ticketing/orders/${orderId}/resend-email`, {}, key());
  refused(resend, LIMITS.MAX_RESENDS_PER_ORDER, 'resends_per_order');
});

test('the sales overview and the voided-ticket list are paged: every page within its bound, the last without a cursor', async () => {
  const s = await merchantShop(w.h);
  await copies('events', s.eventId, OVERVIEW_EVENTS_PAGE);
  const overview = (cursor?: string) =>
    s.api.get(`/v1/ticketing/sales-overview?merchantId=${s.shopId}${cursor ? `&cursor=${cursor}` : ''}`);
  const first = must(await overview(), 200);
  assert.equal(first.events.length, OVERVIEW_EVENTS_PAGE);
  const second = must(await overview(first.nextCursor), 200);
  assert.deepEqual([second.events.length, second.nextCursor], [1, undefined]);
  assert.equal(new Set([...first.events, ...second.events].map((e: { eventId: string }) => e.eventId)).size, 101);

  const quote = must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 }), 201);
  const held = must(await s.api.post('/v1/ticketing/reservations', { quoteId: quote.quoteId }, key()), 201);
  const rid = held.reservation?.id ?? held.id;
  const order = must(
    await s.api.post(`/v1/ticketing/reservations/${rid}/confirm`, { paymentMethod: 'pm_sandbox_visa' }, key()),
    200,
  ).order;
  must(
    await s.api.post(`/v1/ticketing/orders/${order.id}/refunds`, { reason: 'asked', returnToPool: false }, key()),
    200,
  );
  await copies('tickets', order.tickets[0].id, VOID_LIST_PAGE, { unique: ['code', 'signed_code'] });
  const voided = (cursor?: string) =>
    s.api.get(`/v1/ticketing/events/${s.eventId}/voided-tickets${cursor ? `?cursor=${cursor}` : ''}`);
  const page = must(await voided(), 200);
  assert.equal(page.tickets.length, VOID_LIST_PAGE);
  const payload = JSON.parse(Buffer.from(page.signed.split('.')[1], 'base64url').toString());
  assert.equal(payload.next, page.nextCursor);
  const rest = must(await voided(page.nextCursor), 200);
  assert.deepEqual([rest.tickets.length, rest.nextCursor], [1, undefined]);
  assert.equal(new Set([...page.tickets, ...rest.tickets].map((t: { ticketId: string }) => t.ticketId)).size, 1001);
});

test('an event’s data past its bound is recorded truncated, so a delivery’s body is within its documented maxLength', async () => {
  const m = await w.h.merchant();
  const api = restClient(w.h.url, m.apiKey);
  const hook = { merchantId: m.shopId, url: await closedPortUrl(), events: ['order.completed'] };
  const webhook = must(await api.post('/v1/integration/webhooks', hook), 201);
  const data = { kind: 'large', order: { id: 'ord_large', note: 'x'.repeat(MAX_EVENT_DATA) } };
  await w.h.db.transaction((em) =>
    emitEvent(em, { shopId: m.shopId, type: 'order.completed', data, now: w.h.clock.now() }),
  );
  await w.h.app.services.webhooks.dispatchOnce();
  const [delivery] = must(await api.get(`/v1/integration/webhooks/${webhook.id}/deliveries`), 200).deliveries;
  const detail = must(await api.get(`/v1/integration/webhooks/${webhook.id}/deliveries/${delivery.id}`), 200);
  const sent = JSON.parse(detail.request.body);
  const length = JSON.stringify(data).length;
  assert.deepEqual(sent.data, { truncated: true, length, kind: 'large', order: { id: 'ord_large' } });

  const doc = must(await restClient(w.h.url).get('/v1/openapi.json'), 200);
  const answer = doc.paths['/v1/integration/webhooks/{id}/deliveries/{deliveryId}'].get.responses['200'];
  const bound = answer.content['application/json'].schema.properties.request.properties.body.maxLength;
  assert.equal(bound, maxDeliveryBody(doc.servers[0].url.length));
  assert.ok(detail.request.body.length <= bound);
  // No response field is left without a bound.
  assert.deepEqual(UNBOUNDED, {});
});
