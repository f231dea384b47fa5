/**
 * A2A tasks in PostgreSQL (the surface's TaskStore sits on this): rows keyed by owner and task id, so a task made on
 * one server process is read on another and no owner reads another's. The task itself is opaque JSON here; the A2A
 * surface bounds its size before saving, and the retention pass deletes rows a day after their last update.
 */
import type { Database } from './database.ts';

/** How long a task stays readable after its last update. */
export const A2A_TASK_TTL_MS = 24 * 60 * 60 * 1000;

export interface A2aTaskRow {
  id: string;
  contextId: string;
  state: string;
  /** The status time, the listing order. */
  statusAt: Date;
  task: unknown;
}

export interface A2aTaskQuery {
  contextId?: string | undefined;
  state?: string | undefined;
  statusAfter?: Date | undefined;
  /** Tasks strictly after this `[statusAt, id]` in listing order (a page cursor). */
  before?: readonly [Date, string] | undefined;
  limit: number;
}

export class A2aTasks {
  private readonly db: Database;
  constructor(db: Database) {
    this.db = db;
  }

  /**
   * Writes the task (one statement). Its commit does not wait for the WAL to reach the disk (`synchronous_commit` off
   * for this statement's own transaction only): the row is visible to every process at once, and a crash of PostgreSQL
   * itself may lose the last fraction of a second of task records, never what a tool changed (that commits in the
   * tool's own, durable transaction). docs/protocols.md says so.
   */
  async save(owner: string, row: A2aTaskRow, now: Date): Promise<void> {
    await this.db.execute(
      `insert into a2a_tasks (owner, id, context_id, state, status_at, task, updated_at)
       select ?::text, ?::text, ?::text, ?::text, ?::timestamptz, ?::text, ?::timestamptz
         from (select set_config('synchronous_commit', 'off', true)) as asynchronous_commit
       on conflict (owner, id) do update set context_id = excluded.context_id, state = excluded.state,
         status_at = excluded.status_at, task = excluded.task, updated_at = excluded.updated_at`,
      [owner, row.id, row.contextId, row.state, row.statusAt, JSON.stringify(row.task), now],
    );
  }

  async load(owner: string, id: string): Promise<unknown> {
    const [row] = await this.db.execute<{ task: string }>('select task from a2a_tasks where owner = ? and id = ?', [
      owner,
      id,
    ]);
    return row && JSON.parse(row.task);
  }

  /** One page in listing order (newest status first), and how many match in all. */
  async list(owner: string, q: A2aTaskQuery): Promise<{ tasks: A2aTaskRow[]; total: number }> {
    const where = ['owner = ?'];
    const params: unknown[] = [owner];
    const and = (clause: string, ...values: unknown[]) => {
      where.push(clause);
      params.push(...values);
    };
    if (q.contextId) and('context_id = ?', q.contextId);
    if (q.state) and('state = ?', q.state);
    if (q.statusAfter) and('status_at >= ?', q.statusAfter);
    const [count] = await this.db.execute<{ n: string }>(
      `select count(*) as n from a2a_tasks where ${where.join(' and ')}`,
      params,
    );
    if (q.before) and('(status_at, id) < (?, ?)', q.before[0], q.before[1]);
    const rows = await this.db.execute<{
      id: string;
      context_id: string;
      state: string;
      status_at: Date | string;
      task: string;
    }>(
      `select id, context_id, state, status_at, task from a2a_tasks where ${where.join(' and ')}
       order by status_at desc, id desc limit ?`,
      [...params, q.limit],
    );
    return {
      tasks: rows.map((r) => ({
        id: r.id,
        contextId: r.context_id,
        state: r.state,
        statusAt: new Date(r.status_at),
        task: JSON.parse(r.task) as unknown,
      })),
      total: Number(count?.n ?? 0),
    };
  }
}
