/**
 * Verifiable tickets and check-in. The verifier below is written from docs/after-sale.md alone, with node:crypto
 * and the published JWKS (no code of ours, no jose): a ticket code verifies offline, a tampered one does not,
 * codes issued before a key rotation still verify, and a voided ticket is in the signed list.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import { verifyCompact, type Jwks } from '../support/ticket-jws.ts';
import { SURFACES } from '../support/surfaces.ts';
import { confirmWith, key, must, reserveOne, shopWithTier, startSpineHarness, type Shop } from '../support/spine.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

const anonymous = () => restClient(h.url);
const jwks = async (): Promise<Jwks> => must(await anonymous().get('/v1/ticketing/ticket-keys'), 200);
const staff = async () => restClient(h.url, await h.staffToken());

async function paidOrder(s: Shop, quantity: number) {
  const r = await reserveOne(s.api, s.tierId, quantity);
  return must(await confirmWith(s.api, r.reservation.id, 'pm_sandbox_visa'), 200).order;
}

test('a ticket code verifies offline with only the published JWKS; a tampered one does not; rotation keeps old codes valid', async () => {
  const s = await shopWithTier(h);
  const order = await paidOrder(s, 2);
  const [t1] = order.tickets;
  const keysBefore = await jwks();
  const claims = verifyCompact(keysBefore, t1.signedCode, 'tessera-ticket');
  assert.ok(claims, 'the code verifies');
  assert.deepEqual(claims, {
    tid: t1.id,
    evt: s.eventId,
    tier: s.tierId,
    iat: Math.floor(Date.parse(t1.createdAt) / 1000),
  });
  // Tampering: another ticket id under the same signature, or a flipped signature byte.
  const [h64, , s64] = t1.signedCode.split('.');
  const forgedPayload = Buffer.from(JSON.stringify({ ...claims, tid: order.tickets[1].id })).toString('base64url');
  assert.equal(verifyCompact(keysBefore, `${h64}.${forgedPayload}.${s64}`, 'tessera-ticket'), null);
  const sig = Buffer.from(s64, 'base64url');
  sig[0] = sig[0]! ^ 1;
  assert.equal(
    verifyCompact(keysBefore, `${h64}.${t1.signedCode.split('.')[1]}.${sig.toString('base64url')}`, 'tessera-ticket'),
    null,
  );

  const rotated = must(await (await staff()).post('/v1/staff/ticket-keys/rotate', {}), 200);
  assert.equal(rotated.keys.length, keysBefore.keys.length + 1);
  assert.equal((await s.api.post('/v1/staff/ticket-keys/rotate', {})).status, 403, 'staff only');
  const later = await paidOrder(s, 1);
  const keysAfter = await jwks();
  const newKid = JSON.parse(Buffer.from(later.tickets[0].signedCode.split('.')[0], 'base64url').toString()).kid;
  assert.equal(newKid, rotated.activeKid);
  assert.notEqual(newKid, JSON.parse(Buffer.from(h64!, 'base64url').toString()).kid);
  assert.ok(verifyCompact(keysAfter, later.tickets[0].signedCode, 'tessera-ticket'));
  assert.ok(
    verifyCompact(keysAfter, t1.signedCode, 'tessera-ticket'),
    'a code from before the rotation still verifies',
  );
  // …and still admits at the door, while the forged one is refused with its own code.
  must(await s.api.post(`/v1/ticketing/events/${s.eventId}/check-ins`, { code: t1.signedCode, device: 'gate-1' }), 200);
  const forged = await s.api.post(`/v1/ticketing/events/${s.eventId}/check-ins`, {
    code: `${h64}.${forgedPayload}.${s64}`,
    device: 'gate-1',
  });
  assert.equal(forged.body.code, 'invalid_ticket_code');
});

test('concurrent key rotations all succeed one after the other, one key left active (they answered 500)', async () => {
  const api = await staff();
  const before = (await jwks()).keys.length;
  const answers = await Promise.all(Array.from({ length: 5 }, () => api.post('/v1/staff/ticket-keys/rotate', {})));
  assert.deepEqual(
    answers.map((r) => r.status),
    [200, 200, 200, 200, 200],
    JSON.stringify(answers.map((r) => r.body)),
  );
  const kids = answers.map((r) => r.body.activeKid as string);
  assert.equal(new Set(kids).size, 5);
  const published = (await jwks()).keys.map((k) => k.kid);
  assert.equal(published.length, before + 5);
  assert.ok(kids.every((kid) => published.includes(kid)));
  const active = await h.db.execute<{ kid: string }>('select kid from ticket_signing_keys where retired_at is null');
  assert.equal(active.length, 1);
  assert.ok(kids.includes(active[0]!.kid));
  // New tickets are signed with it.
  const s = await shopWithTier(h);
  const order = await paidOrder(s, 1);
  const header = JSON.parse(Buffer.from(order.tickets[0].signedCode.split('.')[0], 'base64url').toString('utf8'));
  assert.equal(header.kid, active[0]!.kid);
});

test('a voided ticket is in the signed voided list, in full and since a time', async () => {
  const s = await shopWithTier(h);
  const order = await paidOrder(s, 3);
  const empty = must(await s.api.get(`/v1/ticketing/events/${s.eventId}/voided-tickets`), 200);
  assert.deepEqual(empty.tickets, []);
  h.clock.advance(60_000);
  must(
    await s.api.post(
      `/v1/ticketing/orders/${order.id}/refunds`,
      { ticketIds: [order.tickets[1].id], reason: 'x', returnToPool: true },
      key(),
    ),
    200,
  );
  const voidedAt = h.clock.now();
  const full = must(await s.api.get(`/v1/ticketing/events/${s.eventId}/voided-tickets`), 200);
  assert.deepEqual(
    full.tickets.map((t: any) => t.ticketId),
    [order.tickets[1].id],
  );
  const payload = verifyCompact(await jwks(), full.signed, 'tessera-void-list');
  assert.ok(payload, 'the list verifies with the JWKS');
  assert.equal(payload.evt, s.eventId);
  assert.deepEqual(payload.voided, [[order.tickets[1].id, Math.floor(voidedAt.getTime() / 1000)]]);
  const since = new Date(voidedAt.getTime() + 1000).toISOString();
  const none = must(await s.api.get(`/v1/ticketing/events/${s.eventId}/voided-tickets?since=${since}`), 200);
  assert.deepEqual(none.tickets, []);
  assert.equal(
    verifyCompact(await jwks(), none.signed, 'tessera-void-list')?.since,
    Math.floor(Date.parse(since) / 1000),
  );
  const other = await shopWithTier(h);
  assert.equal((await other.api.get(`/v1/ticketing/events/${s.eventId}/voided-tickets`)).status, 404);
});

for (const surface of SURFACES) {
  test(`check-in over ${surface.name}: first scan admits, a second says when, voided, forged, other-event and other-organization codes refused`, async () => {
    const s = await shopWithTier(h);
    const otherOrg = await shopWithTier(h);
    const order = await paidOrder(s, 2);
    const foreign = await paidOrder(otherOrg, 1);
    // Another event of the same shop, with a ticket sold for it.
    const startsAt = new Date(h.clock.now().getTime() + 40 * 86_400_000).toISOString();
    const event2 = must(
      await s.api.post('/v1/integration/events', { merchantId: s.shopId, title: 'Matinee', startsAt }),
      201,
    );
    const pool2 = must(
      await s.api.post('/v1/integration/pools', { merchantId: s.shopId, eventId: event2.id, capacity: 5 }),
      201,
    );
    const tier2 = must(
      await s.api.post('/v1/integration/tiers', {
        eventId: event2.id,
        poolId: pool2.id,
        name: 'Seat',
        priceMinor: 1000,
      }),
      201,
    );
    const sibling = await paidOrder({ ...s, eventId: event2.id, poolId: pool2.id, tierId: tier2.id }, 1);
    must(
      await s.api.post(
        `/v1/ticketing/orders/${order.id}/refunds`,
        { ticketIds: [order.tickets[1].id], reason: 'x', returnToPool: false },
        key(),
      ),
      200,
    );
    const conn = await surface.connect(h, s.apiKey);
    try {
      const [good, voided] = order.tickets;
      const first = await conn.call('check_in', { id: s.eventId, code: good.signedCode, device: 'gate-A' });
      assert.ok(first.ok, JSON.stringify(first));
      assert.equal(first.output.result, 'admitted');
      assert.equal(first.output.ticket.checkedInAt, h.clock.now().toISOString());
      assert.equal(first.output.ticket.checkedInDevice, 'gate-A');
      h.clock.advance(5000);
      const second = await conn.call('check_in', { id: s.eventId, code: good.code, device: 'gate-B' });
      assert.equal(!second.ok && second.code, 'already_checked_in');
      assert.equal(!second.ok && second.error.details.checkedInAt, first.output.ticket.checkedInAt);
      const v = await conn.call('check_in', { id: s.eventId, code: voided.signedCode, device: 'gate-A' });
      assert.equal(!v.ok && v.code, 'ticket_void');
      // The signature's first character changed (the last ones may encode the same bytes: an Ed25519 S ends in a
      // byte below 0x20, so "…AA" was the same signature about one time in sixteen).
      const signature = good.signedCode.slice(good.signedCode.lastIndexOf('.') + 1);
      const tampered = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
      const forged = await conn.call('check_in', {
        id: s.eventId,
        code: `${good.signedCode.slice(0, good.signedCode.lastIndexOf('.') + 1)}${tampered}`,
        device: 'gate-A',
      });
      assert.equal(!forged.ok && forged.code, 'invalid_ticket_code');
      const garbage = await conn.call('check_in', { id: s.eventId, code: 'not-a-ticket', device: 'gate-A' });
      assert.equal(!garbage.ok && garbage.code, 'invalid_ticket_code');
      // Another event of the same organization is named, to help the door.
      for (const code of [sibling.tickets[0].signedCode, sibling.tickets[0].code]) {
        const wrong = await conn.call('check_in', { id: s.eventId, code, device: 'gate-A' });
        assert.equal(!wrong.ok && wrong.code, 'ticket_wrong_event');
        assert.deepEqual(!wrong.ok && wrong.error.details, { ticketId: sibling.tickets[0].id, eventId: event2.id });
      }
      // Another organization's ticket is an unknown code: neither its ticket nor its event is named (issue #32).
      for (const code of [foreign.tickets[0].signedCode, foreign.tickets[0].code]) {
        const alien = await conn.call('check_in', { id: s.eventId, code, device: 'gate-A' });
        assert.equal(!alien.ok && alien.code, 'invalid_ticket_code');
        assert.doesNotMatch(JSON.stringify(alien), new RegExp(`${foreign.tickets[0].id}|${otherOrg.eventId}`));
      }
      h.clock.advance(30 * 86_400_000); // at the event, so the scan's time is inside its window
      const uploaded = await conn.call('upload_scans', {
        id: s.eventId,
        device: 'gate-C',
        scans: [{ code: foreign.tickets[0].code, scannedAt: h.clock.now().toISOString() }],
      });
      assert.ok(uploaded.ok, JSON.stringify(uploaded));
      assert.equal(uploaded.output.results[0].result, 'invalid_ticket_code');
      assert.doesNotMatch(JSON.stringify(uploaded), new RegExp(`${foreign.tickets[0].id}|${otherOrg.eventId}`));
    } finally {
      await conn.done();
    }
  });
}
