/**
 * More concurrent calls than the server has database connections (10): every one completes. A transaction that
 * waited for a second pooled connection while holding its first hung here once all ten were held (issuing tickets
 * read the signing key on its own connection: 48 concurrent confirms never answered).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { confirmWith, reserveOne, shopWithTier, startSpineHarness } from '../support/spine.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

test('48 concurrent confirms on a 10-connection pool all complete: one order each, the pool intact', async () => {
  const s = await shopWithTier(h, { capacity: 100 });
  const held = [];
  for (let i = 0; i < 48; i++) held.push(await reserveOne(s.api, s.tierId));
  const answers = await Promise.all(held.map((r) => confirmWith(s.api, r.reservation.id, 'pm_sandbox_visa')));
  assert.deepEqual(
    answers.map((a) => a.status),
    answers.map(() => 200),
  );
  const c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.held, c.sold], [52, 0, 48]);

  // The door opens: every ticket scanned at once (a check-in reads the published keys inside its transaction).
  const codes = answers.map((a) => a.body.order.tickets[0].signedCode as string);
  const eventId = answers[0]!.body.reservation.eventId as string;
  const scans = await Promise.all(
    codes.map((code, i) => s.api.post(`/v1/ticketing/events/${eventId}/check-ins`, { code, device: `gate-${i % 4}` })),
  );
  assert.deepEqual(
    scans.map((a) => a.status),
    scans.map(() => 200),
  );
});
