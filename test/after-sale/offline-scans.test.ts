/**
 * Offline check-in: a scanner downloads the list and uploads later; conflicting scans resolve to the earliest and are
 * reported, scans dated outside the doors are refused, and overlapping uploads do not deadlock (tickets.test.ts has
 * the verifiable codes, key rotation, the voided list and online check-in).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import { verifyCompact } from '../support/ticket-jws.ts';
import { holdRows, poll } from '../support/row-lock.ts';
import { SURFACES } from '../support/surfaces.ts';
import { confirmWith, key, must, reserveOne, shopWithTier, startSpineHarness, type Shop } from '../support/spine.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

async function paidOrder(s: Shop, quantity: number) {
  const r = await reserveOne(s.api, s.tierId, quantity);
  return must(await confirmWith(s.api, r.reservation.id, 'pm_sandbox_visa'), 200).order;
}

test('an offline scanner downloads the list, uploads later; conflicting scans resolve to the earliest and are reported', async () => {
  const s = await shopWithTier(h);
  const order = await paidOrder(s, 3);
  must(
    await s.api.post(
      `/v1/ticketing/orders/${order.id}/refunds`,
      { ticketIds: [order.tickets[2].id], reason: 'x', returnToPool: true },
      key(),
    ),
    200,
  );
  const list = must(await s.api.get(`/v1/ticketing/events/${s.eventId}/check-in-list`), 200);
  assert.deepEqual(
    list.tickets.map((t: any) => [t.ticketId, t.state]),
    order.tickets.map((t: any, i: number) => [t.id, i === 2 ? 'void' : 'valid']),
  );
  // The list's keys verify the codes offline.
  assert.ok(verifyCompact({ keys: list.keys }, order.tickets[0].signedCode, 'tessera-ticket'));
  const [a, b, v] = order.tickets;
  // At the event (it starts 30 days after the purchase): scans are dated around now, after the tickets were issued.
  h.clock.advance(30 * 86_400_000);
  const t0 = h.clock.now().getTime();
  const at = (s_: number) => new Date(t0 - 600_000 + s_ * 1000).toISOString();
  // Device 1 uploads first: a at +20 s, b at +30 s (twice), the voided one, and a forged code.
  const up1 = must(
    await s.api.post(`/v1/ticketing/events/${s.eventId}/scans`, {
      device: 'door-1',
      scans: [
        { code: a.signedCode, scannedAt: at(20) },
        { code: b.signedCode, scannedAt: at(30) },
        { code: b.signedCode, scannedAt: at(31) },
        { code: v.signedCode, scannedAt: at(32) },
        { code: `${a.signedCode}x`, scannedAt: at(33) },
      ],
    }),
    200,
  );
  assert.deepEqual(
    up1.results.map((r: any) => r.result),
    ['admitted', 'admitted', 'already_checked_in', 'ticket_void', 'invalid_ticket_code'],
  );
  // Device 2 scanned a earlier (+10 s) and b later (+40 s): a moves to device 2, b stays with device 1.
  const up2 = must(
    await s.api.post(`/v1/ticketing/events/${s.eventId}/scans`, {
      device: 'door-2',
      scans: [
        { code: a.signedCode, scannedAt: at(10) },
        { code: b.signedCode, scannedAt: at(40) },
      ],
    }),
    200,
  );
  assert.deepEqual(
    up2.results.map((r: any) => [r.result, r.checkedInAt, r.checkedInDevice]),
    [
      ['admitted', at(10), 'door-2'],
      ['already_checked_in', at(30), 'door-1'],
    ],
  );
  const read = must(await s.api.get(`/v1/ticketing/orders/${order.id}`), 200);
  assert.deepEqual(
    read.tickets.map((t: any) => [t.checkedInAt, t.checkedInDevice]),
    [
      [at(10), 'door-2'],
      [at(30), 'door-1'],
      [null, null],
    ],
  );
  // Uploading the same scans again answers the same.
  const again = must(
    await s.api.post(`/v1/ticketing/events/${s.eventId}/scans`, {
      device: 'door-2',
      scans: [{ code: a.signedCode, scannedAt: at(10) }],
    }),
    200,
  );
  assert.equal(again.results[0].result, 'admitted');
  // An online scan afterwards says when the ticket was first admitted.
  const online = await s.api.post(`/v1/ticketing/events/${s.eventId}/check-ins`, {
    code: b.signedCode,
    device: 'gate',
  });
  assert.equal(online.body.code, 'already_checked_in');
  assert.equal(online.body.details.checkedInAt, at(30));
  const future = await s.api.post(`/v1/ticketing/events/${s.eventId}/scans`, {
    device: 'door-3',
    scans: [{ code: a.signedCode, scannedAt: new Date(t0 + 3_600_000).toISOString() }],
  });
  assert.equal(future.body.code, 'scan_time_out_of_range');
});

for (const surface of SURFACES) {
  test(`upload over ${surface.name}: a scan dated before the doors, its ticket or the upload is refused`, async () => {
    // So a made-up early time cannot take over a real check-in (it could: the earliest scan wins).
    const s = await shopWithTier(h);
    const early = await paidOrder(s, 1);
    // An hour before the event starts (30 days after the shop was made), a second ticket is bought and the first
    // one is checked in at the gate.
    h.clock.advance(30 * 86_400_000 - 3_600_000);
    const late = await paidOrder(s, 1);
    const checkIn = { code: early.tickets[0].signedCode, device: 'gate' };
    const gate = must(await s.api.post(`/v1/ticketing/events/${s.eventId}/check-ins`, checkIn), 200);
    const now = h.clock.now().getTime();
    const at = (ms: number) => new Date(ms).toISOString();
    const conn = await surface.connect(h, s.apiKey);
    try {
      const cases: [string, string, string][] = [
        ['the epoch', early.tickets[0].signedCode, at(0)],
        ['25 h before the start', early.tickets[0].code, at(now + 3_600_000 - 25 * 3_600_000)],
        ['before the ticket was issued', late.tickets[0].signedCode, at(now - 10 * 60_000)],
        ['an hour after the upload', early.tickets[0].signedCode, at(now + 3_600_000)],
      ];
      for (const [what, code, scannedAt] of cases) {
        const scans = [
          { code: early.tickets[0].code, scannedAt: at(now - 1000) },
          { code, scannedAt },
        ];
        const up = await conn.call('upload_scans', { id: s.eventId, device: 'rogue', scans });
        assert.equal(!up.ok && up.code, 'scan_time_out_of_range', `${what}: ${JSON.stringify(up)}`);
        assert.equal(!up.ok && up.error.details.field, 'scans.1.scannedAt', what);
      }
      // Nothing was applied: the gate's check-in still holds.
      const read = must(await s.api.get(`/v1/ticketing/orders/${early.id}`), 200);
      const [held] = read.tickets;
      assert.deepEqual([held.checkedInAt, held.checkedInDevice], [gate.ticket.checkedInAt, 'gate']);
      // Inside the window (a scanner clock a few minutes ahead included), scans are applied as before.
      const ok = await conn.call('upload_scans', {
        id: s.eventId,
        device: 'door',
        scans: [
          { code: early.tickets[0].signedCode, scannedAt: at(now - 22 * 3_600_000) },
          { code: late.tickets[0].signedCode, scannedAt: at(now + 60_000) },
        ],
      });
      assert.ok(ok.ok, JSON.stringify(ok));
      const results = ok.output.results.map((r: any) => [r.result, r.checkedInDevice]);
      assert.deepEqual(results, [
        ['admitted', 'door'],
        ['admitted', 'door'],
      ]);
    } finally {
      await conn.done();
    }
  });
}

test('overlapping uploads of the same tickets in opposite order all succeed (they deadlocked)', async () => {
  const s = await shopWithTier(h, { capacity: 30 });
  h.clock.advance(30 * 86_400_000);
  const api = () => restClient(h.url, s.apiKey);
  const now = h.clock.now().getTime();
  const at = (sec: number) => new Date(now + sec * 1000).toISOString();
  const upload = (device: string, first: any, second: any) => {
    const scans = [
      { code: first.signedCode, scannedAt: at(1) },
      { code: second.signedCode, scannedAt: at(2) },
    ];
    return api().post(`/v1/ticketing/events/${s.eventId}/scans`, { device, scans });
  };
  // Deterministic: with the first ticket held, door-1 waits for it; door-2 (which scanned the second ticket first)
  // takes the second and waits for the first; released, door-1 then needs the second ticket door-2 holds.
  const order = await paidOrder(s, 2);
  const [a, b] = order.tickets;
  const holder = await holdRows(h.dbUrl, 'select id from tickets where id = $1 for update', [a.id]);
  // Sessions of this test's own database waiting on a lock (pg_locks would count every database's).
  const waiting = async () =>
    (
      await holder.client.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
      )
    ).rows[0]!.n;
  try {
    const one = upload('door-1', a, b);
    assert.ok(await poll(async () => (await waiting()) >= 1), 'door-1 waits on the held ticket');
    const two = upload('door-2', b, a);
    assert.ok(await poll(async () => (await waiting()) >= 2), 'door-2 waits too');
    await holder.release();
    const answers = await Promise.all([one, two]);
    assert.deepEqual(
      answers.map((r) => r.status),
      [200, 200],
      JSON.stringify(answers.map((r) => r.body)),
    );
  } finally {
    await holder.end();
  }
  // And ten plain races, each with its own two tickets.
  for (let run = 0; run < 10; run++) {
    const [c, d] = (await paidOrder(s, 2)).tickets;
    const answers = await Promise.all([upload('door-1', c, d), upload('door-2', d, c)]);
    const bodies = JSON.stringify(answers.map((r) => r.body));
    assert.deepEqual(
      answers.map((r) => r.status),
      [200, 200],
      `run ${run}: ${bodies}`,
    );
    const list = must(await api().get(`/v1/ticketing/events/${s.eventId}/check-in-list`), 200);
    const held = (id: string) => list.tickets.find((t: any) => t.ticketId === id);
    const holders = [c, d].map((t) => [held(t.id).checkedInAt, held(t.id).checkedInDevice]);
    assert.deepEqual(holders, [
      [at(1), 'door-1'],
      [at(1), 'door-2'],
    ]);
  }
});
