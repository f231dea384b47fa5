/** Start-up timing marks: where a server's start goes, logged at debug level (read by `npm run bench:start`). */
import { performance as nodePerformance } from 'node:perf_hooks';
import type { Logger } from 'pino';

/**
 * Logs at debug level how long `phase` took since `since` (a `performance.now()` reading) and returns the time now, for
 * the next mark. `at` is the time since the process started, so the marks also say when each step ended.
 */
export function startPhase(log: Logger, phase: string, since: number): number {
  const now = performance.now();
  log.debug({ startPhase: phase, ms: Math.round(now - since), at: Math.round(now) }, 'start phase');
  return now;
}

/**
 * The first marks of a start: Node.js's own bootstrap (`node`), the steps `src/main.ts` measured before loading the
 * server (`performance.measure` with `detail: { startPhase: true }`: finding the server bundle), then loading and
 * type-stripping the module graph up to the caller (`modules`). Returns the time now.
 */
export function startMarksSoFar(log: Logger): number {
  const booted = nodePerformance.nodeTiming.bootstrapComplete;
  log.debug({ startPhase: 'node', ms: Math.round(booted), at: Math.round(booted) }, 'start phase');
  let since = booted;
  for (const m of performance.getEntriesByType('measure') as PerformanceMeasure[]) {
    if ((m.detail as { startPhase?: boolean } | null)?.startPhase !== true) continue;
    since = m.startTime + m.duration;
    log.debug({ startPhase: m.name, ms: Math.round(m.duration), at: Math.round(since) }, 'start phase');
  }
  return startPhase(log, 'modules', since);
}
