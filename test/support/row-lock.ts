/**
 * Holding rows locked from outside the server, so a call waits on them at a known point without any timing: a
 * connection of its own opens a transaction and locks what `lockSql` selects; `release` commits it.
 */
import pg from 'pg';

export interface HeldRows {
  /** The holder's connection, for reads beside the lock. */
  client: pg.Client;
  /** How many lock requests of other sessions are waiting right now. */
  waiters: () => Promise<number>;
  /** Commits the holder's transaction, letting the waiting calls go on. */
  release(): Promise<void>;
  /** Ends the connection (rolling back if not released). */
  end(): Promise<void>;
}

export async function holdRows(dbUrl: string, lockSql: string, params: unknown[] = []): Promise<HeldRows> {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    await client.query('begin');
    await client.query(lockSql, params);
  } catch (err) {
    await client.end();
    throw err;
  }
  return {
    client,
    waiters: async () =>
      (await client.query<{ n: number }>('select count(*)::int as n from pg_locks where not granted')).rows[0]!.n,
    release: async () => void (await client.query('commit')),
    end: () => client.end(),
  };
}

/**
 * Runs `check` until it returns something truthy, at most `tries` times (bounded by count, not time), yielding to the
 * event loop between tries; returns its last value for the test to assert on.
 */
export async function poll<T>(check: () => Promise<T> | T, tries = 5000): Promise<T> {
  let value = await check();
  for (let i = 1; i < tries && !value; i++) {
    await new Promise((r) => setImmediate(r));
    value = await check();
  }
  return value;
}
