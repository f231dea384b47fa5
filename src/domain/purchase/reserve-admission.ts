/**
 * Admission control for the reserve batcher (docs/performance.md, "Overload"): a call is admitted or refused with
 * `429 rate_limited` before anything else is done for it, from this process's recent batch times and service rate.
 * A refusal's `retryAfter` is a return slot: at most as many refused calls are told to come back within any one
 * window of the bound as the process holds at once, so callers refused together do not all return together.
 */
import { systemClock, type Clock } from '../../kernel/clock.ts';
import { ToolError } from '../../kernel/errors.ts';

/** The longest `retryAfter` a refusal gives (seconds): past it, every later slot is full too and the caller is told this. */
export const MAX_RETRY_AFTER_S = 30;
/** The longest queue a process keeps, in full batches: past it every call is refused whatever the estimates say. */
const QUEUE_CAP_BATCHES = 16;

export interface AdmissionOptions {
  batchMax: number;
  inFlight: number;
  /** The longest a call should wait for its batch (RESERVE_MAX_WAIT_MS). */
  maxWaitMs: number;
  /** The time the return slots are counted in (tests move it by hand). */
  clock?: Clock;
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
  /** The width of one return window (ms): the bound, within 10 ms and 1 s. */
  private readonly windowMs: number;
  /** Return slots, a ring over the next MAX_RETRY_AFTER_S seconds: which window each entry counts, and how many were told it. */
  private readonly slotWindow: Float64Array;
  private readonly slotCount: Uint32Array;

  constructor(opts: AdmissionOptions) {
    this.opts = opts;
    this.windowMs = Math.min(1000, Math.max(10, opts.maxWaitMs));
    const size = Math.ceil(((MAX_RETRY_AFTER_S + 1) * 1000) / this.windowMs) + 1;
    this.slotWindow = new Float64Array(size).fill(-1);
    this.slotCount = new Uint32Array(size);
  }

  /** How many calls may be inside this process at once: what the recent service rate clears within the bound, at least one full batch. */
  private inside(): number {
    return this.ratePerSecond > 0 ? Math.max(this.opts.batchMax, (this.opts.maxWaitMs / 1000) * this.ratePerSecond) : Infinity;
  }

  /**
   * The whole seconds a refused call is told to wait: the first of 1, 2, … MAX_RETRY_AFTER_S whose return window (the
   * bound's width, at now plus that many seconds) has fewer callers told to return in it than the process holds at once.
   * A burst refused at one moment is spread over as many seconds as it needs; callers refused at different moments get
   * one second, as before. (A client waits whole seconds, so callers refused together and told the same come back
   * together: at ten times the load that returning burst, refused again at the front of the event loop, was the tail of
   * the admitted calls' latency; docs/performance.md.)
   */
  private retryAfter(): number {
    const now = (this.opts.clock ?? systemClock).now().getTime();
    const limit = Math.max(1, Math.floor(Math.min(this.inside(), this.opts.batchMax * QUEUE_CAP_BATCHES)));
    for (let s = 1; s <= MAX_RETRY_AFTER_S; s++) {
      const window = Math.floor((now + s * 1000) / this.windowMs);
      const slot = window % this.slotWindow.length;
      if (this.slotWindow[slot] !== window) {
        this.slotWindow[slot] = window;
        this.slotCount[slot] = 0;
      }
      if (this.slotCount[slot]! < limit) {
        this.slotCount[slot]!++;
        return s;
      }
    }
    return MAX_RETRY_AFTER_S;
  }

  /**
   * Admits a new call, or refuses it (429 rate_limited) when it would wait longer than the bound: either its
   * batch queue (`queued` calls, `running` batches) is too long for the recent batch time, or more calls are already
   * inside this process (being authenticated, queued or written) than the recent service rate clears within the bound
   * (Little's law), which is what a saturated process shows first. That count is never bounded below one full batch
   * (`batchMax`), so a batch can always fill. (The floor was a full batch per batch in flight: with a bound shorter than
   * the time the process takes to clear that many calls, the floor decided, not the bound, and admitted calls waited
   * longer than the bound; docs/performance.md.) The refusal's `retryAfter` is a return slot (`retryAfter()`). Returns
   * the release to call when the call is answered.
   */
  admit(queued: number, running: number): () => void {
    const { batchMax, inFlight, maxWaitMs } = this.opts;
    const batchesAhead = Math.floor(queued / batchMax) + 1;
    const expectedMs = running < inFlight ? 0 : (batchesAhead * this.batchMs) / inFlight;
    if (expectedMs > maxWaitMs || this.active >= this.inside() || queued >= batchMax * QUEUE_CAP_BATCHES) {
      this.refused++;
      const retryAfter = this.retryAfter();
      throw new ToolError('rate_limited', `This pool is at capacity right now; retry in ${retryAfter} s.`, { queued }, retryAfter);
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
