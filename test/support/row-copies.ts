/**
 * Filling a table up to a cap in one statement (test/rest/limits*.test.ts): rows are copied in SQL from one made
 * through the API, so a cap of 500 costs one statement, not 500 calls.
 */
import type { Database } from '../../src/storage/database.ts';

export interface CopyOptions {
  /** The primary key column (default `id`). */
  pk?: string;
  /** Columns that must stay unique: each copy's value gets `-<n>` appended, like its key. */
  unique?: string[];
  /** A jsonb expression over the row `t` and the copy's number `g` that overrides other columns. */
  set?: string;
}

/** Inserts `n` copies of `table`'s row whose key is `id`. */
export async function copyRows(db: Database, table: string, id: string, n: number, opts: CopyOptions = {}) {
  const pk = opts.pk ?? 'id';
  const renamed = [pk, ...(opts.unique ?? [])].map((c) => `'${c}', t.${c} || '-' || g`).join(', ');
  await db.execute(
    `insert into ${table} select (jsonb_populate_record(null::${table},
       to_jsonb(t) || jsonb_build_object(${renamed}) || ${opts.set ?? `'{}'::jsonb`})).*
       from ${table} t, generate_series(1, ?) g where t.${pk} = ?`,
    [n, id],
  );
}
