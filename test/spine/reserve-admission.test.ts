/**
 * Admission control's in-process bound (src/domain/purchase/reserve-admission.ts): at most as many calls inside the
 * process as its recent service rate clears within RESERVE_MAX_WAIT_MS, and never fewer than one full batch. The
 * refusal is 429 rate_limited with retryAfter; a release lets the next call in. (The whole path, a refused reserve
 * over HTTP with its Retry-After and its key left unclaimed, is in hot-pool.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReserveAdmission } from '../../src/domain/purchase/reserve-admission.ts';
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
  assert.doesNotMatch(String(err.stack), /\n\s+at /, 'a refusal captures no stack trace (it is an answer, and cheap under overload)');
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
