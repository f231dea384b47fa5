/** The database handle: MikroORM over PostgreSQL, with short transactions, raw SQL and error mapping. */
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import {
  CheckConstraintViolationException,
  ConnectionException,
  DeadlockException,
  DriverException,
  ForeignKeyConstraintViolationException,
  LockWaitTimeoutException,
  UniqueConstraintViolationException,
} from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { ToolError } from '../kernel/errors.ts';
import { ENTITIES } from './entities/index.ts';
import { MIGRATIONS } from './migrations/index.ts';

export type IsolationLevel = 'read committed' | 'repeatable read' | 'serializable';

export class Database {
  readonly orm: MikroORM;
  private constructor(orm: MikroORM) {
    this.orm = orm;
  }

  /** Connects to `url` (no migrations are run; call `migrate()`). */
  static async open(url: string, opts: { poolMax?: number } = {}): Promise<Database> {
    const orm = await MikroORM.init({
      clientUrl: url,
      entities: [...ENTITIES],
      extensions: [Migrator],
      migrations: { migrationsList: [...MIGRATIONS], transactional: true, allOrNothing: true, snapshot: false, silent: true },
      pool: { min: 0, max: opts.poolMax ?? 10 },
      debug: false,
      allowGlobalContext: false,
      ensureDatabase: false,
      discovery: { warnWhenNoEntities: false },
    });
    return new Database(orm);
  }

  /** Applies every checked-in migration not applied yet; returns the names applied. */
  async migrate(): Promise<string[]> {
    const applied = await this.orm.migrator.up();
    return applied.map((m) => m.name);
  }

  /** A fresh EntityManager outside any transaction. */
  fork(): EntityManager {
    return this.orm.em.fork();
  }

  /** Runs `fn` in one transaction on a fresh fork; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (em: EntityManager) => Promise<T>, opts: { isolation?: IsolationLevel } = {}): Promise<T> {
    return this.orm.em.fork().transactional((em) => fn(em), opts.isolation ? { isolationLevel: opts.isolation as never } : {});
  }

  /** Raw parameterised SQL (`?` placeholders) outside any transaction. */
  async execute<R = Record<string, unknown>>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    return (await this.orm.em.getConnection().execute(sql, params, 'all')) as R[];
  }

  /** Maps driver failures to stable codes (never leaking SQL); undefined for anything else. */
  mapDatabaseError(err: unknown): ToolError | undefined {
    const sqlState = (err as { code?: unknown } | null)?.code;
    if (sqlState === '40001' || sqlState === '40P01') {
      return new ToolError('unavailable', 'The request conflicted with a concurrent one; retry it.', undefined, 1);
    }
    if (!(err instanceof DriverException)) return undefined;
    if (err instanceof DeadlockException || err instanceof LockWaitTimeoutException) {
      return new ToolError('unavailable', 'The request conflicted with a concurrent one; retry it.', undefined, 1);
    }
    if (err instanceof ConnectionException) return new ToolError('unavailable', undefined, undefined, 5);
    if (err instanceof UniqueConstraintViolationException) return new ToolError('conflict', 'That already exists.');
    if (err instanceof ForeignKeyConstraintViolationException) return new ToolError('conflict', 'A referenced object does not exist.');
    if (err instanceof CheckConstraintViolationException) return new ToolError('conflict');
    return undefined;
  }

  async close(): Promise<void> {
    await this.orm.close(true);
  }
}

/** With SQL run by `execute` inside a transaction: the transaction-bound raw query. */
export async function sql<R = Record<string, unknown>>(em: EntityManager, text: string, params: readonly unknown[] = []): Promise<R[]> {
  return (await em.getConnection().execute(text, params, 'all', em.getTransactionContext())) as R[];
}
