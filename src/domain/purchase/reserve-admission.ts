/**
 * Admission control for the reserve batcher (docs/performance.md, "Overload"): a call is admitted or refused with
 * `429 rate_limited` before anything else is done for it, from this process's recent batch times and service rate.
 */
import { ToolError } from '../../kernel/errors.ts';

export interface AdmissionOptions {
  batchMax: number;
  inFlight: number;
  /** The longest a call should wait for its batch (RESERVE_MAX_WAIT_MS). */
  maxWaitMs: number;
}

export class ReserveAdmission {
  private readonly opts: AdmissionOptions;
  /** Recent batch duration (ms), exponentially smoothed: the admission estimate. */
  private batchMs = 0;
  /** Recent service rate (calls answered per second by this process's batches), exponentially smoothed. */
  private ratePerSecond = 0;
  /** Admitted calls not answered yet. */
  private active = 0;
  /** Calls refused so far (for the bench and tests). */
  refused = 0;

  constructor(opts: AdmissionOptions) {
    this.opts = opts;
  }

  /**
   * Admits a new call, or refuses it (429 rate_limited) when it would wait longer than the bound: either its
   * batch queue (`queued` calls, `running` batches) is too long for the recent batch time, or more calls are already
   * inside this process (being authenticated, queued or written) than the recent service rate clears within the bound
   * (Little's law), which is what a saturated process shows first. That count is never bounded below one full batch
   * (`batchMax`), so a batch can always fill. (The floor was a full batch per batch in flight: with a bound shorter than
   * the time the process takes to clear that many calls, the floor decided, not the bound, and admitted calls waited
   * longer than the bound; docs/performance.md.) Returns the release to call when the call is answered.
   */
  admit(queued: number, running: number): () => void {
    const { batchMax, inFlight, maxWaitMs } = this.opts;
    const batchesAhead = Math.floor(queued / batchMax) + 1;
    const expectedMs = running < inFlight ? 0 : (batchesAhead * this.batchMs) / inFlight;
    const inside = this.ratePerSecond > 0 ? Math.max(batchMax, (maxWaitMs / 1000) * this.ratePerSecond) : Infinity;
    if (expectedMs > maxWaitMs || this.active >= inside || queued >= batchMax * 16) {
      this.refused++;
      throw new ToolError('rate_limited', 'This pool is at capacity right now; retry shortly.', { queued }, 1);
    }
    this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
    };
  }

  /** Learns from a finished batch of `calls` calls that took `ms`. */
  record(calls: number, ms: number): void {
    this.batchMs = this.batchMs === 0 ? ms : this.batchMs * 0.8 + ms * 0.2;
    const rate = (calls * 1000 * this.opts.inFlight) / Math.max(ms, 0.1);
    this.ratePerSecond = this.ratePerSecond === 0 ? rate : this.ratePerSecond * 0.8 + rate * 0.2;
  }
}
