/**
 * The one work-queue mechanism of the background jobs (order mail, webhook deliveries, event refunds, the hold
 * sweeper, the sandbox provider's events): a job is a row of its own table, claimed with `FOR UPDATE SKIP LOCKED` so
 * several server processes never take the same row, leased while its attempt runs, and retried with back-off on the
 * injected clock. What a job does, and what its states mean, stays in the module that owns the table; the loops that
 * run the passes are `Periodic` (src/kernel/periodic.ts). See docs/architecture.md, "Background work".
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Database, sql } from './database.ts';

/** A table of jobs: how to find its due rows, and what a claim writes on each. */
export interface WorkTable {
  table: string;
  /** The key columns, as SQL: `id` or `event_id, order_id`. */
  key: string;
  /** The condition a due row meets; every `?` in it is bound to the claim's `now`. */
  due: string;
  /** The order due rows are taken in. */
  order: string;
  /** The column a claim sets to `now + ms`: the row is not due again until the lease ends (its process died). */
  lease?: { column: string; ms: number };
  /** The column counting attempts: a claim adds one; with `maxAttempts`, a row that used them up is never due. */
  attempts?: string;
  maxAttempts?: number;
}

export interface ClaimOptions {
  now: Date;
  limit: number;
  /** More assignments on each claimed row (`state = 'released', released_at = ?`), with their parameters. */
  set?: string;
  setParams?: readonly unknown[];
  /** The columns returned for each claimed row; the key when omitted. */
  returning?: string;
}

/**
 * Claims up to `limit` due rows of `q` for this process and returns them. With a lease, attempts or `set`, the claim
 * is one UPDATE that commits at once (the lease keeps other processes away while the attempt runs, outside any
 * transaction). With none of them it only locks the rows (SELECT … FOR UPDATE SKIP LOCKED): call it with the `em`
 * of a transaction, which then owns the rows until it commits.
 */
export async function claimDue<R = Record<string, unknown>>(
  runner: Database | EntityManager,
  q: WorkTable,
  opts: ClaimOptions,
): Promise<R[]> {
  const dueParams = Array.from(q.due.matchAll(/\?/g), () => opts.now);
  const where = q.attempts && q.maxAttempts !== undefined ? `${q.due} and ${q.attempts} < ?` : q.due;
  const whereParams = q.attempts && q.maxAttempts !== undefined ? [...dueParams, q.maxAttempts] : dueParams;
  const pick = `select ${opts.returning ?? q.key} from ${q.table} where ${where} order by ${q.order} limit ?`;
  const locked = `select ${q.key} from ${q.table} where ${where} order by ${q.order} limit ? for update skip locked`;
  const sets: string[] = [];
  const setParams: unknown[] = [];
  if (q.attempts) sets.push(`${q.attempts} = ${q.attempts} + 1`);
  if (q.lease) {
    sets.push(`${q.lease.column} = ?`);
    setParams.push(new Date(opts.now.getTime() + q.lease.ms));
  }
  if (opts.set) {
    sets.push(opts.set);
    setParams.push(...(opts.setParams ?? []));
  }
  const [text, params] = sets.length
    ? [
        `update ${q.table} set ${sets.join(', ')}
          where (${q.key}) in (${locked})
          returning ${opts.returning ?? q.key}`,
        [...setParams, ...whereParams, opts.limit],
      ]
    : [`${pick} for update skip locked`, [...whereParams, opts.limit]];
  return runner instanceof Database ? runner.execute<R>(text, params) : sql<R>(runner, text, params);
}

/** How a failed job is retried: how many attempts in all, and the wait after the n-th failed one (n from 1). */
export interface RetryPolicy {
  maxAttempts: number;
  delayMs(attempt: number): number;
}

/** Waits from a table: after attempt n the n-th entry (the last one repeats), in seconds. */
export function scheduledDelays(seconds: readonly number[]): (attempt: number) => number {
  return (attempt) => 1000 * (seconds[Math.min(attempt, seconds.length) - 1] ?? 0);
}

/** Doubling waits: `baseMs · 2^attempt`, at most `capMs`. */
export function doublingDelays(baseMs: number, capMs: number): (attempt: number) => number {
  return (attempt) => Math.min(capMs, baseMs * 2 ** attempt);
}

/** When a job whose attempt number `attempts` failed at `now` is due again; null when it has used all its attempts. */
export function retryAt(policy: RetryPolicy, attempts: number, now: Date): Date | null {
  if (attempts >= policy.maxAttempts) return null;
  return new Date(now.getTime() + policy.delayMs(attempts));
}
