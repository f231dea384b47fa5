/**
 * Admission control's in-process bound (src/domain/purchase/reserve-admission.ts): at most as many calls inside the
 * process as its recent service rate clears within RESERVE_MAX_WAIT_MS, and never fewer than one full batch. The
 * refusal is 429 rate_limited with retryAfter; a release lets the next call in. A refusal's retryAfter is a return
 * slot: callers refused at one moment are told to come back over as many seconds as they need, at most as many in one
 * window of the bound as the process holds at once. (The whole path, a refused reserve over HTTP with its Retry-After
 * and its key left unclaimed, is in hot-pool.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_RETRY_AFTER_S, ReserveAdmission } from '../../src/domain/purchase/reserve-admission.ts';
import { ManualClock } from '../../src/kernel/clock.ts';
import { ToolError } from '../../src/kernel/errors.ts';

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
};

test('inside one process: as many calls as the service rate clears in the bound, never fewer than one full batch', () => {
  // Two batches in flight, each of 10 calls in 100 ms: 200 calls a second, so a 100 ms bound alone would allow 20.
  const slow = new ReserveAdmission({ batchMax: 64, inFlight: 2, maxWaitMs: 100 });
  slow.record(10, 100);
  const releases = Array.from({ length: 64 }, () => slow.admit(0, 0));
  const err = refusal(() => slow.admit(0, 0));
  assert.ok(err instanceof ToolError, 'the call after one full batch is refused');
  assert.equal(err.code, 'rate_limited');
  assert.equal(err.toBody().retryAfter, 1);
  assert.doesNotMatch(
    String(err.stack),
    /\n\s+at /,
    'a refusal captures no stack trace (it is an answer, and cheap under overload)',
  );
  assert.equal(slow.refused, 1);
  releases[0]!();
  releases[0]!(); // a second release of the same call changes nothing
  releases.push(slow.admit(0, 0));
  assert.ok(refusal(() => slow.admit(0, 0)) instanceof ToolError, 'released once, one more call is admitted, not two');

  // 64 calls in 20 ms per batch, two in flight: 6,400 calls a second, so the 100 ms bound allows 640.
  const fast = new ReserveAdmission({ batchMax: 64, inFlight: 2, maxWaitMs: 100 });
  fast.record(64, 20);
  for (let i = 0; i < 639; i++) fast.admit(0, 0);
  fast.admit(0, 0);
  assert.ok(refusal(() => fast.admit(0, 0)) instanceof ToolError);
  assert.equal(fast.refused, 1);
});

test('return slots: a burst refused at one moment is told to come back over several seconds, as many a second as fit inside', () => {
  const clock = new ManualClock();
  // One batch in flight of 20 calls in 100 ms: 200 calls a second, so a 100 ms bound holds 20 calls, one full batch.
  const admission = new ReserveAdmission({ batchMax: 20, inFlight: 1, maxWaitMs: 100, clock });
  admission.record(20, 100);
  for (let i = 0; i < 20; i++) admission.admit(0, 0);
  const retryAfter = () => {
    const err = refusal(() => admission.admit(0, 0));
    assert.ok(err instanceof ToolError && err.code === 'rate_limited', String(err));
    assert.equal(err.toBody().retryAfter, err.retryAfter);
    assert.match(
      err.message,
      new RegExp(`retry in ${err.retryAfter} s\\.$`),
      'the message names the wait, for a reader of the text alone',
    );
    return err.retryAfter!;
  };
  const burst = Array.from({ length: 70 }, retryAfter);
  const count = (s: number) => burst.filter((r) => r === s).length;
  assert.deepEqual([1, 2, 3, 4].map(count), [20, 20, 20, 10], 'twenty a second, in the order refused');
  assert.deepEqual(burst.slice(0, 3), [1, 1, 1]);
  assert.equal(burst[69], 4);

  // One window (the bound, 100 ms) later, the return windows are others: the next refusal is told one second again.
  clock.advance(100);
  assert.equal(retryAfter(), 1);
  // Within the same window, the seconds already given stay taken: 50 ms on, the 1 s window still holds the burst's 20.
  clock.advance(-50);
  assert.equal(retryAfter(), 4);

  // Past every slot, a refusal is told the longest wait rather than a short one it could not be served in.
  const crowd = Array.from({ length: 20 * MAX_RETRY_AFTER_S }, retryAfter);
  assert.equal(Math.max(...crowd), MAX_RETRY_AFTER_S);
  assert.equal(retryAfter(), MAX_RETRY_AFTER_S);
  assert.equal(admission.refused, 70 + 2 + 20 * MAX_RETRY_AFTER_S + 1);
});

test('a call counts against the bound from its arrival (read whole, being authenticated) and holds a place only once taken', () => {
  const admission = new ReserveAdmission({ batchMax: 4, inFlight: 1, maxWaitMs: 100 });
  admission.record(4, 100); // 40 calls a second: a 100 ms bound holds one full batch, 4
  const none = () => 0;
  const arrivals = Array.from({ length: 4 }, () => admission.arrive(none, none));
  assert.ok(refusal(() => admission.check(0, 0)) instanceof ToolError, 'four arriving: an early check refuses');
  assert.ok(refusal(() => admission.arrive(none, none)) instanceof ToolError, 'and so does a fifth arrival');
  arrivals[0]!.drop();
  arrivals[0]!.drop(); // twice changes nothing
  admission.check(0, 0);
  // Arrivals that take their places are admitted in turn; their releases let the next ones in.
  const releases = arrivals.slice(1).map((a) => a.take());
  arrivals[1]!.drop(); // after take: nothing
  releases.push(admission.arrive(none, none).take());
  assert.deepEqual([admission.counts().inside, admission.counts().arriving], [4, 0]);
  assert.ok(refusal(() => admission.arrive(none, none)) instanceof ToolError, 'four inside: refused');
  releases[0]!();
  assert.deepEqual([admission.counts().admitted, admission.counts().refused], [4, 3]);
  admission.arrive(none, none).take();
});
