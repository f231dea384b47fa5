/** The heartbeat rows of the server processes that route reserves (RESERVE_ROUTING): who is live, and where. */
import type { Database } from './database.ts';

/** A live server process: its id, its internal (loopback) address, when it started and last beat. */
export interface ProcessRow {
  id: string;
  address: string;
  startedAt: Date;
  beatAt: Date;
}

/** A process counts as live while its last beat is younger than this (it beats once a second). */
export const LIVE_FOR_SECONDS = 3;

/**
 * One statement: writes this process's beat (its row made on the first), drops rows silent for an hour, and returns
 * the live processes, this one included, oldest first. Times are the database's, so the processes' clocks do not
 * matter.
 */
export async function beat(db: Database, id: string, address: string): Promise<ProcessRow[]> {
  const rows = await db.execute<{ id: string; address: string; started_at: Date | string; beat_at: Date | string }>(
    `with mine as (
       insert into server_processes (id, address, started_at, beat_at) values (?, ?, now(), now())
       on conflict (id) do update set beat_at = now(), address = excluded.address
       returning id, address, started_at, beat_at
     ), dropped as (
       delete from server_processes where beat_at < now() - interval '1 hour'
     )
     select id, address, started_at, beat_at from mine
     union all
     select id, address, started_at, beat_at from server_processes
       where id <> ? and beat_at > now() - make_interval(secs => ?)
     order by started_at, id`,
    [id, address, id, LIVE_FOR_SECONDS],
  );
  // The driver's timestamps come back as Date or as text, by how the statement was run: both read alike.
  return rows.map((r) => ({
    id: r.id,
    address: r.address,
    startedAt: new Date(r.started_at),
    beatAt: new Date(r.beat_at),
  }));
}

/** Removes this process's row (a clean stop), so the others stop routing to it at once. */
export async function leave(db: Database, id: string): Promise<void> {
  await db.execute('delete from server_processes where id = ?', [id]);
}
