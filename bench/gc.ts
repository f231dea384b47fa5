/**
 * A server process's garbage collector over a stretch of the bench, read from its `/metrics` (prom-client's
 * `nodejs_gc_duration_seconds`, by kind) before and after. A collection stops the event loop: under a flood, scavenges
 * of 13–42 ms every few hundred milliseconds were part of every admitted call's tail (docs/performance.md).
 */
export interface GcTotals {
  /** Scavenges (young generation): how many, their seconds, and how many took 10 ms or more. */
  minor: number;
  minorS: number;
  minorOver10ms: number;
  /** Mark-compacts (old generation) and their incremental marking steps on the main thread: how many, and seconds. */
  major: number;
  majorS: number;
  /**
   * The event loop's delay (prom-client's `monitorEventLoopDelay`, 10 ms resolution), largest and p99, in ms: over the
   * time since the previous reading, as prom-client starts it afresh at each collection of `/metrics`.
   */
  loopMaxMs: number;
  loopP99Ms: number;
}

const LINE = /^nodejs_gc_duration_seconds_(bucket|sum|count)\{([^}]*)\} (\S+)$/;
const LOOP = /^nodejs_eventloop_lag_(max|p99)_seconds (\S+)$/;

/** The process's collector totals since it started, and its event loop's delay since the last reading. */
export async function gcTotals(baseUrl: string): Promise<GcTotals> {
  const res = await fetch(new URL('/metrics', baseUrl));
  if (!res.ok) throw new Error(`/metrics answered ${res.status}`);
  const totals: GcTotals = { minor: 0, minorS: 0, minorOver10ms: 0, major: 0, majorS: 0, loopMaxMs: 0, loopP99Ms: 0 };
  let minorUnder10ms = 0;
  for (const line of (await res.text()).split('\n')) {
    const loop = LOOP.exec(line);
    if (loop) {
      if (loop[1] === 'max') totals.loopMaxMs = Number(loop[2]) * 1000;
      else totals.loopP99Ms = Number(loop[2]) * 1000;
      continue;
    }
    const m = LINE.exec(line);
    if (!m) continue;
    const [, part, labels, raw] = m;
    const kind = /kind="(\w+)"/.exec(labels!)?.[1];
    const value = Number(raw);
    if (kind === 'minor') {
      if (part === 'count') totals.minor = value;
      else if (part === 'sum') totals.minorS = value;
      else if (/le="0\.01"/.test(labels!)) minorUnder10ms = value;
    } else if (kind === 'major' || kind === 'incremental') {
      if (part === 'count' && kind === 'major') totals.major = value;
      else if (part === 'sum') totals.majorS += value;
    }
  }
  totals.minorOver10ms = totals.minor - minorUnder10ms;
  return totals;
}

/** What the collector did between two readings, and the event loop's delay over that time (the later reading's). */
export function gcBetween(before: GcTotals, after: GcTotals): GcTotals {
  return {
    minor: after.minor - before.minor,
    minorS: after.minorS - before.minorS,
    minorOver10ms: after.minorOver10ms - before.minorOver10ms,
    major: after.major - before.major,
    majorS: after.majorS - before.majorS,
    loopMaxMs: after.loopMaxMs,
    loopP99Ms: after.loopP99Ms,
  };
}
