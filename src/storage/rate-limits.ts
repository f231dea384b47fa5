/**
 * The rate-limit counters' table, shared by every server process: `rate-limiter-flexible`'s RateLimiterPostgres writes
 * it through `rateLimitStoreClient`, which runs the library's `$n` queries with their bind parameters on our database
 * handle (its pool, its error mapping, its prepared statements), so no second connection pool is opened. The retention
 * pass deletes counters an hour past their window.
 */
import type { Database } from './database.ts';

export const RATE_LIMIT_TABLE = 'rate_limits';

/** A `pg`-pool-shaped client (`query({ text, values }) → { rows }`) over `db`. */
export function rateLimitStoreClient(db: Database): {
  query(q: { text: string; values?: unknown[] }): Promise<{ rows: unknown[] }>;
} {
  return {
    async query({ text, values = [] }) {
      return { rows: await db.bound(text, values) };
    },
  };
}
