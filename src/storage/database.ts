/** The database handle: MikroORM over PostgreSQL, with short transactions, raw SQL and error mapping. */
import { AsyncLocalStorage } from 'node:async_hooks';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery, type Kysely } from 'kysely';
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
import type { Pool, PoolClient } from 'pg';
import { ToolError } from '../kernel/errors.ts';
import { ENTITIES } from './entities/index.ts';
import { MIGRATIONS } from './migrations/index.ts';
import { prepareRepeatedStatements, StatementNames } from './prepared-statements.ts';

/** The default bound on waiting for a pooled connection (DATABASE_ACQUIRE_TIMEOUT_MS). */
export const DEFAULT_ACQUIRE_TIMEOUT_MS = 10_000;

/** Marks the code running inside a `Database.transaction` (after its connection was taken), for `guardPool`. */
const insideTransaction = new AsyncLocalStorage<TransactionMark>();
interface TransactionMark {
  open: boolean;
  /** The transaction this one was started inside, if any (a nested transaction takes a second connection too). */
  outer: TransactionMark | undefined;
}
const inOpenTransaction = (mark: TransactionMark | undefined): boolean =>
  Boolean(mark && (mark.open || inOpenTransaction(mark.outer)));

/** Thrown (with `guardPool`) when code inside a transaction asks the pool for another connection. */
export class SecondConnectionError extends Error {
  constructor() {
    super(
      'Code inside a transaction asked the pool for a second connection; run the query on the transaction (its EntityManager).',
    );
  }
}

export type IsolationLevel = 'read committed' | 'repeatable read' | 'serializable';

export class Database {
  readonly orm: MikroORM;
  /** The driver's connection pool once opened: a test's report of connections left out when closing hangs. */
  readonly driver: { pool?: Pool };
  private constructor(orm: MikroORM, driver: { pool?: Pool } = {}) {
    this.orm = orm;
    this.driver = driver;
  }

  /**
   * Connects to `url` (no migrations are run; call `migrate()`). `acquireTimeoutMs` (default 10 s) bounds the wait for
   * a pooled connection: code that, inside a transaction, takes a second connection while every connection is held by
   * such code would otherwise wait forever (the deadlock class of docs/performance.md); past the bound the call fails
   * with `unavailable` (503, Retry-After) and its transaction rolls back, which frees its connection.
   * `preparedStatements`: repeated statements go as named prepared statements (src/storage/prepared-statements.ts).
   */
  static async open(
    url: string,
    opts: { poolMax?: number; acquireTimeoutMs?: number; guardPool?: boolean; preparedStatements?: boolean } = {},
  ): Promise<Database> {
    const opened: { pool?: Pool } = {};
    const orm = await MikroORM.init({
      clientUrl: url,
      entities: [...ENTITIES],
      extensions: [Migrator],
      migrations: {
        migrationsList: [...MIGRATIONS],
        transactional: true,
        allOrNothing: true,
        snapshot: false,
        silent: true,
      },
      pool: { min: 0, max: opts.poolMax ?? 10 },
      driverOptions: {
        onPoolCreated: (pool: Pool) => {
          opened.pool = pool;
          if (opts.preparedStatements) prepareRepeatedStatements(pool, new StatementNames());
          reapLostConnections(pool);
          if (opts.guardPool) refuseSecondConnections(pool);
        },
        connectionTimeoutMillis: opts.acquireTimeoutMs ?? DEFAULT_ACQUIRE_TIMEOUT_MS,
      },
      debug: false,
      allowGlobalContext: false,
      ensureDatabase: false,
      discovery: { warnWhenNoEntities: false },
    });
    return new Database(orm, opened);
  }

  /**
   * Applies every checked-in migration not applied yet; returns the names applied. Most starts find them all applied:
   * one query says so, without the migrator's table checks and transaction (docs/performance.md, "Start time").
   */
  async migrate(): Promise<string[]> {
    const done = await this.execute<{ name: string }>('select name from mikro_orm_migrations').catch(() => undefined);
    const names = new Set(done?.map((row) => row.name));
    if (MIGRATIONS.every((m) => names.has(m.name))) return [];
    const applied = await this.orm.migrator.up();
    return applied.map((m) => m.name);
  }

  /** A fresh EntityManager outside any transaction. */
  fork(): EntityManager {
    return this.orm.em.fork();
  }

  /** Runs `fn` in one transaction on a fresh fork; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (em: EntityManager) => Promise<T>, opts: { isolation?: IsolationLevel } = {}): Promise<T> {
    const mark: TransactionMark = { open: false, outer: insideTransaction.getStore() };
    return insideTransaction.run(mark, () =>
      this.orm.em
        .fork()
        .transactional(
          (em) => {
            mark.open = true;
            return fn(em);
          },
          opts.isolation ? { isolationLevel: opts.isolation as never } : {},
        )
        .finally(() => {
          mark.open = false;
        }),
    );
  }

  /** Raw parameterised SQL (`?` placeholders) outside any transaction. */
  async execute<R = Record<string, unknown>>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    return (await this.orm.em.getConnection().execute(sql, params, 'all')) as R[];
  }

  /**
   * Raw SQL outside any transaction with `$1`, `$2`, … bind parameters (see `boundSql`): nothing is quoted in
   * JavaScript, and a repeated statement goes as a named prepared statement (src/storage/prepared-statements.ts).
   */
  async bound<R = Record<string, unknown>>(text: string, params: readonly unknown[]): Promise<R[]> {
    return runBound<R>(this.orm.em.getConnection().getClient(), text, params);
  }

  /** Maps driver failures to stable codes (never leaking SQL); undefined for anything else. */
  mapDatabaseError(err: unknown): ToolError | undefined {
    if (isPoolExhausted(err))
      return new ToolError('unavailable', 'No database connection came free in time; retry shortly.', undefined, 1);
    if (isDatabaseUnavailable(err))
      return new ToolError('unavailable', 'The database is unavailable right now; retry shortly.', undefined, 2);
    const sqlState = (err as { code?: unknown } | null)?.code;
    if (sqlState === '0A000' && /cached plan must not change result type/.test(String((err as Error).message))) {
      // A prepared statement whose table changed under a live server (src/storage/prepared-statements.ts): it runs
      // unnamed from now on, so the retry succeeds.
      return new ToolError('unavailable', 'The request met a schema change; retry it.', undefined, 1);
    }
    if (sqlState === '40001' || sqlState === '40P01') {
      return new ToolError('unavailable', 'The request conflicted with a concurrent one; retry it.', undefined, 1);
    }
    if (!(err instanceof DriverException)) return undefined;
    if (err instanceof DeadlockException || err instanceof LockWaitTimeoutException) {
      return new ToolError('unavailable', 'The request conflicted with a concurrent one; retry it.', undefined, 1);
    }
    if (err instanceof UniqueConstraintViolationException) return new ToolError('conflict', 'That already exists.');
    if (err instanceof ForeignKeyConstraintViolationException)
      return new ToolError('conflict', 'A referenced object does not exist.');
    if (err instanceof CheckConstraintViolationException) return new ToolError('conflict');
    return undefined;
  }

  async close(): Promise<void> {
    await this.orm.close(true);
  }
}

/** Socket errors that mean the database cannot be reached. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
/**
 * SQLSTATEs of a server going away or refusing connections: admin/crash shutdown, cannot connect now, too many
 * connections.
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);
/** How `pg` words a lost connection (it raises plain Errors without a code). */
const LOST_MESSAGES =
  /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|timeout exceeded when trying to connect|Connection ended)/;

/**
 * True when `err` (or its cause) says the database is lost or unreachable, rather than that the request was wrong: the
 * caller gets 503 `unavailable` with `Retry-After`, never a 500.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof ConnectionException) return true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_STATES.has(code) || code.startsWith('08')))
      return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && LOST_MESSAGES.test(message)) return true;
  }
  return false;
}

/** True when `err` (or its cause) is `pg`'s refusal after waiting `connectionTimeoutMillis` for a pooled connection. */
export function isPoolExhausted(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { message?: unknown }).message === 'timeout exceeded when trying to connect') return true;
  }
  return false;
}

/**
 * The development and test check against the pool deadlock class (`Database.open(url, { guardPool: true })`, which the
 * test suite uses): a connection asked for by code running inside a `Database.transaction`, whose own connection is
 * already held, is refused at once with `SecondConnectionError`, so the mistake fails its test instead of deadlocking
 * only when every connection is taken. Work merely started inside a transaction and still running after it ended is
 * not refused.
 */
function refuseSecondConnections(pool: Pool): void {
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { connect: (...args: unknown[]) => unknown }).connect = (...args: unknown[]) => {
    if (inOpenTransaction(insideTransaction.getStore())) {
      const err = new SecondConnectionError();
      const cb = args[0];
      if (typeof cb === 'function') {
        process.nextTick(() => (cb as (e: Error) => void)(err));
        return undefined;
      }
      return Promise.reject(err);
    }
    return connect(...args);
  };
}

/** How long a checked-out connection whose socket ended may stay out before it is taken back. */
const LOST_CONNECTION_GRACE_MS = 2_000;

/**
 * Gives the pool back the connections a lost database leaves checked out. When the socket of a connection inside a
 * transaction drops, the query fails and so does the rollback, and Kysely (under MikroORM) releases the connection only
 * after a rollback that succeeded: the slot would stay taken for good, the pool would shrink with every outage until no
 * request could get a connection, and closing would wait forever. Any use of a dead connection fails at once, so one
 * still checked out a moment after its socket ended is one nobody will release: it is released with an error, which
 * removes it from the pool.
 */
function reapLostConnections(pool: Pool): void {
  const internals = pool as unknown as { _clients: PoolClient[]; _idle: { client: PoolClient }[] };
  pool.on('connect', (client) => {
    client.once('end', () => {
      setTimeout(() => {
        if (!internals._clients.includes(client) || internals._idle.some((i) => i.client === client)) return;
        try {
          client.release(new Error('The database connection was lost.'));
        } catch {
          // Released meanwhile by its holder: nothing to take back.
        }
      }, LOST_CONNECTION_GRACE_MS).unref();
    });
  });
}

/** With SQL run by `execute` inside a transaction: the transaction-bound raw query. */
export async function sql<R = Record<string, unknown>>(
  em: EntityManager,
  text: string,
  params: readonly unknown[] = [],
): Promise<R[]> {
  return (await em.getConnection().execute(text, params, 'all', em.getTransactionContext())) as R[];
}

/**
 * Like `sql`, with the parameters sent as bind parameters (`$1`, `$2`, … in `text`) instead of written into the text:
 * MikroORM's `execute` quotes and escapes each parameter into the SQL in JavaScript, which for a statement carrying a
 * batch's rows as JSON (src/storage/reserve-batch.ts) cost more than the rest of sending it, and PostgreSQL then parses
 * the literal again. Rows come back through the same driver, with the same type parsers; errors are the driver's, as
 * with `sql`.
 */
export async function boundSql<R = Record<string, unknown>>(
  em: EntityManager,
  text: string,
  params: readonly unknown[],
): Promise<R[]> {
  return runBound<R>(em.getTransactionContext<Kysely<unknown>>() ?? em.getConnection().getClient(), text, params);
}

/** Runs `text` with its bind parameters on a connection or transaction. */
async function runBound<R>(runner: unknown, text: string, params: readonly unknown[]): Promise<R[]> {
  const res = await (runner as Kysely<unknown>).executeQuery<R>(CompiledQuery.raw(text, [...params]));
  return res.rows as R[];
}
