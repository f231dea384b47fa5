/**
 * A cap holds under concurrency (src/domain/limits.ts, `lockCaps`): creates racing for the last place under a cap
 * are counted one at a time, so exactly one gets it and the others are refused `limit_reached`; before, each counted
 * below the cap and all of them inserted.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as LIMITS from '../../src/domain/limits.ts';
import { copyRows } from '../support/row-copies.ts';
import { merchantShop, startWorld, type World } from '../support/buyers.ts';

let w: World;
before(async () => {
  w = await startWorld({});
});
after(async () => {
  await w?.close();
});

test('eight tiers racing for an event’s last tier place: one is created, seven are refused, the cap holds', async () => {
  const s = await merchantShop(w.h);
  await copyRows(w.h.db, 'tiers', s.tierId, LIMITS.MAX_TIERS_PER_EVENT - 2); // one place left
  const answers = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      s.api.post('/v1/integration/tiers', { eventId: s.eventId, poolId: s.poolId, name: `Late ${i}`, priceMinor: 100 }),
    ),
  );
  const statuses = answers.map((a) => a.status).sort((a, b) => a - b);
  assert.deepEqual(statuses, [201, 409, 409, 409, 409, 409, 409, 409], JSON.stringify(answers.map((a) => a.body)));
  for (const a of answers.filter((x) => x.status === 409)) assert.equal(a.body.details.what, 'tiers_per_event');
  const [row] = await w.h.db.execute<{ n: number }>('select count(*)::int as n from tiers where event_id = ?', [
    s.eventId,
  ]);
  assert.equal(row!.n, LIMITS.MAX_TIERS_PER_EVENT);
});
