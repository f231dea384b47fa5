/**
 * `/metrics` reports the garbage collector's pauses by kind (prom-client's `nodejs_gc_duration_seconds`) and the event
 * loop's delay, and the bench reads them from there (bench/gc.ts: part 3 prints each overload repetition's scavenges,
 * mark-compacts and longest loop delay): if the format the bench parses changed, this fails rather than the bench
 * printing zeros.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { gcBetween, gcTotals } from '../../bench/gc.ts';
import { startHarness, type Harness } from '../support/harness.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  await h?.close();
});

test('scavenges in this process show in /metrics as the bench reads them', async () => {
  const before = await gcTotals(h.url);
  let seen = gcBetween(before, before);
  // Short-lived garbage, in rounds, until the collector's observer has reported a scavenge (bounded by count: a few
  // MB of young objects fill the young generation many times over in the first round already).
  for (let round = 0; round < 50 && seen.minor === 0; round++) {
    let junk: { i: number; s: string }[] = [];
    for (let i = 0; i < 300_000; i++) {
      junk.push({ i, s: `x${i}` });
      if (junk.length > 10_000) junk = [];
    }
    await new Promise((r) => setImmediate(r));
    seen = gcBetween(before, await gcTotals(h.url));
  }
  assert.ok(seen.minor > 0, 'a scavenge was counted');
  assert.ok(seen.minorS > 0, 'with its seconds');
  assert.ok(seen.minorOver10ms >= 0 && seen.minorOver10ms <= seen.minor, 'the long ones are some of them');
  assert.ok(seen.major >= 0 && seen.majorS >= 0);
  assert.ok(
    Number.isFinite(seen.loopMaxMs) && seen.loopMaxMs >= 0 && Number.isFinite(seen.loopP99Ms) && seen.loopP99Ms >= 0,
  );
});

test("the event loop's delay is in /metrics as the lines the bench reads", async () => {
  const text = await (await fetch(`${h.url}/metrics`)).text();
  assert.match(text, /^nodejs_eventloop_lag_max_seconds \d/m);
  assert.match(text, /^nodejs_eventloop_lag_p99_seconds \d/m);
});
