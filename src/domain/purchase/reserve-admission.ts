/**
 * Admission control for the reserve batcher (docs/performance.md, "Overload"): a call is refused with
 * `429 rate_limited` as early as the refusal is certain, from this process's recent batch times and service rate, but
 * it takes a place only once its input is read whole and its caller authenticated (`arrive`, then `take`): a caller
 * that never finishes its request, or never authenticates, holds nothing another buyer needs (issue #32: 64 sockets
 * that sent a reserve's headers and one byte of its body held every place). A refusal's `retryAfter` is a return slot:
 * at most as many refused calls are told to come back within any one window of the bound as the process holds at once,
 * so callers refused together do not all return together.
 */
import { systemClock, type Clock } from '../../kernel/clock.ts';
import { ToolError } from '../../kernel/errors.ts';

/**
 * The longest `retryAfter` a refusal gives (seconds): past it, every later slot is full too and the caller is told
 * this.
 */
export const MAX_RETRY_AFTER_S = 30;
/** The longest queue a process keeps, in full batches: past it every call is refused whatever the estimates say. */
const QUEUE_CAP_BATCHES = 16;

export interface AdmissionOptions {
  batchMax: number;
  inFlight: number;
  /** The longest a call should wait for its batch (RESERVE_MAX_WAIT_MS). */
  maxWaitMs: number;
  /** The time the return slots and the recent decisions are counted in (tests move it by hand). */
  clock?: Clock;
}

/** A call whose input is read and whose caller is being authenticated: `take` its place once it is, or `drop` it. */
export interface Arrival {
  /** Takes the call's place (or refuses it for load, 429) and returns its release; the arrival is over either way. */
  take(): () => void;
  /** The call ends before it takes a place (its caller or input refused); idempotent, and a no-op after `take`. */
  drop(): void;
}

/** The width of one window of recent decisions (`recent`), in ms: the last full window and the current one count. */
export const RECENT_WINDOW_MS = 10_000;

/** Admission decisions so far and in the recent windows (the `/metrics` counters and `/readyz`). */
export interface AdmissionCounts {
  /** Calls that took a place. */
  admitted: number;
  /** Calls refused for load. */
  refused: number;
  /** Calls holding a place now (queued or being written). */
  inside: number;
  /** Calls read whole and being authenticated now (they count against the bound, hold no place). */
  arriving: number;
  /** Admitted and refused calls in the last full RECENT_WINDOW_MS window and the current one. */
  recent: { admitted: number; refused: number };
  /**
   * `shedding` while most recent decisions are refusals (more refused than admitted, and at least SHEDDING_MIN_REFUSALS
   * refused): the process is past its bound, as at a sale's opening; otherwise `admitting`.
   */
  state: 'admitting' | 'shedding';
}

/** The fewest recent refusals that make the state `shedding` (a few refusals of an idle process are noise). */
export const SHEDDING_MIN_REFUSALS = 10;

export class ReserveAdmission {
  private readonly opts: AdmissionOptions;
  /** Recent batch duration (ms), exponentially smoothed: the admission estimate. */
  private batchMs = 0;
  /** Recent service rate (calls answered per second by this process's batches), exponentially smoothed. */
  private ratePerSecond = 0;
  /** Admitted calls not answered yet. */
  private active = 0;
  /** Arrived calls (read whole, being authenticated) that have neither taken a place nor been dropped. */
  private arriving = 0;
  /** Calls refused so far (for the bench and tests). */
  refused = 0;
  /** Calls admitted so far. */
  admitted = 0;
  /** Decisions in the current window of RECENT_WINDOW_MS and the one before: [window number, admitted, refused]. */
  private readonly windows: [number, number, number][] = [
    [-1, 0, 0],
    [-1, 0, 0],
  ];
  /** The width of one return window (ms): the bound, within 10 ms and 1 s. */
  private readonly windowMs: number;
  /**
   * Return slots, a ring over the next MAX_RETRY_AFTER_S seconds: which window each entry counts, and how many were
   * told it.
   */
  private readonly slotWindow: Float64Array;
  private readonly slotCount: Uint32Array;

  constructor(opts: AdmissionOptions) {
    this.opts = opts;
    this.windowMs = Math.min(1000, Math.max(10, opts.maxWaitMs));
    const size = Math.ceil(((MAX_RETRY_AFTER_S + 1) * 1000) / this.windowMs) + 1;
    this.slotWindow = new Float64Array(size).fill(-1);
    this.slotCount = new Uint32Array(size);
  }

  /**
   * How many calls may be inside this process at once: what the recent service rate clears within the bound, at least
   * one full batch.
   */
  private inside(): number {
    return this.ratePerSecond > 0
      ? Math.max(this.opts.batchMax, (this.opts.maxWaitMs / 1000) * this.ratePerSecond)
      : Infinity;
  }

  /**
   * The whole seconds a refused call is told to wait: the first of 1, 2, … MAX_RETRY_AFTER_S whose return window (the
   * bound's width, at now plus that many seconds) has fewer callers told to return in it than the process holds at
   * once. A burst refused at one moment is spread over as many seconds as it needs; callers refused at different
   * moments get one second, as before. (A client waits whole seconds, so callers refused together and told the same
   * come back together: at ten times the load that returning burst, refused again at the front of the event loop, was
   * the tail of the admitted calls' latency; docs/performance.md.)
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

  /** Whether a call would wait longer than the bound, counting `inside` calls in this process (see `admit`). */
  private overloaded(queued: number, running: number, inside: number): boolean {
    const { batchMax, inFlight, maxWaitMs } = this.opts;
    const batchesAhead = Math.floor(queued / batchMax) + 1;
    const expectedMs = running < inFlight ? 0 : (batchesAhead * this.batchMs) / inFlight;
    return expectedMs > maxWaitMs || inside >= this.inside() || queued >= batchMax * QUEUE_CAP_BATCHES;
  }

  /** Counts a refusal and throws its 429 with a return slot. */
  private refuse(queued: number): never {
    this.refused++;
    this.count(2);
    const retryAfter = this.retryAfter();
    const message = `This pool is at capacity right now; retry in ${retryAfter} s.`;
    throw new ToolError('rate_limited', message, { queued }, retryAfter);
  }

  /** Adds one decision (1 admitted, 2 refused) to the current window of recent decisions. */
  private count(column: 1 | 2): void {
    const window = Math.floor((this.opts.clock ?? systemClock).now().getTime() / RECENT_WINDOW_MS);
    const entry = this.windows[window % 2]!;
    if (entry[0] !== window) entry.splice(0, 3, window, 0, 0);
    entry[column]++;
  }

  /**
   * Refuses a call (429 rate_limited) when the refusal is already certain, taking nothing: the process is past its
   * bound with the calls that hold a place and those read whole and being authenticated (`arrive`). A call still being
   * sent is not counted anywhere, so clients that never finish their requests cannot make this refuse anyone. A surface
   * that knows the tool before it reads the input (REST) checks here first, so a refusal under overload costs no body
   * read.
   */
  check(queued: number, running: number): void {
    if (this.overloaded(queued, running, this.active + this.arriving)) this.refuse(queued);
  }

  /**
   * A call whose input is read whole arrives (or is refused at once, as `check`): it counts against the bound while its
   * caller is authenticated, which the server does in bounded time, and takes its place with `take` once it is. The
   * orchestrator does this for every surface (src/orchestrator/invoke.ts).
   */
  arrive(queued: () => number, running: () => number): Arrival {
    this.check(queued(), running());
    this.arriving++;
    let state: 'arrived' | 'over' = 'arrived';
    const leave = () => {
      if (state === 'arrived') this.arriving--;
      state = 'over';
    };
    return {
      take: () => {
        leave();
        return this.admit(queued(), running());
      },
      drop: leave,
    };
  }

  /**
   * Admits a call whose caller is authenticated, or refuses it (429 rate_limited) when it would wait longer than the
   * bound: either its batch queue (`queued` calls, `running` batches) is too long for the recent batch time, or more
   * calls are already inside this process (queued or being written) than the recent service rate clears within the
   * bound (Little's law), which is what a saturated process shows first. That count is never bounded below one full
   * batch (`batchMax`), so a batch can always fill. (The floor was a full batch per batch in flight: with a bound
   * shorter than the time the process takes to clear that many calls, the floor decided, not the bound, and admitted
   * calls waited longer than the bound; docs/performance.md.) Calls still arriving do not count here: each of them is
   * admitted or refused in turn. The refusal's `retryAfter` is a return slot (`retryAfter()`). Returns the release to
   * call when the call is answered.
   */
  admit(queued: number, running: number): () => void {
    if (this.overloaded(queued, running, this.active)) this.refuse(queued);
    this.active++;
    this.admitted++;
    this.count(1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
    };
  }

  /** The decisions so far, the calls inside and arriving now, and the decisions of the recent windows. */
  counts(): AdmissionCounts {
    const window = Math.floor((this.opts.clock ?? systemClock).now().getTime() / RECENT_WINDOW_MS);
    const recent = { admitted: 0, refused: 0 };
    for (const [w, admitted, refused] of this.windows) {
      if (w !== window && w !== window - 1) continue;
      recent.admitted += admitted;
      recent.refused += refused;
    }
    const shedding = recent.refused >= SHEDDING_MIN_REFUSALS && recent.refused > recent.admitted;
    const state = shedding ? 'shedding' : 'admitting';
    const { admitted, refused, active: inside, arriving } = this;
    return { admitted, refused, inside, arriving, recent, state };
  }

  /** Learns from a finished batch of `calls` calls that took `ms`. */
  record(calls: number, ms: number): void {
    this.batchMs = this.batchMs === 0 ? ms : this.batchMs * 0.8 + ms * 0.2;
    const rate = (calls * 1000 * this.opts.inFlight) / Math.max(ms, 0.1);
    this.ratePerSecond = this.ratePerSecond === 0 ? rate : this.ratePerSecond * 0.8 + rate * 0.2;
  }
}
