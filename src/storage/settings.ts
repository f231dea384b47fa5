/**
 * Server-wide settings kept in the database, so every process on one database agrees (e.g. the sealed OAuth signing
 * key); never a clear secret.
 */
import type { Database } from './database.ts';

/** Returns the stored value for `key`, creating it with `make()` the first time (race-safe). */
export async function ensureSetting(db: Database, key: string, make: () => string): Promise<string> {
  await db.execute('insert into settings (key, value) values (?, ?) on conflict (key) do nothing', [key, make()]);
  const [row] = await db.execute<{ value: string }>('select value from settings where key = ?', [key]);
  if (!row) throw new Error(`setting ${key} missing`);
  return row.value;
}
