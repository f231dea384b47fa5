/** Boots a real server on a real socket (port 0) over a fresh database, with an injected clock. */
import { pino, type Logger } from 'pino';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/kernel/config.ts';
import { ManualClock } from '../../src/kernel/clock.ts';
import { bootstrapOrganization, type BootstrapResult } from '../../src/domain/merchants/merchants.ts';
import type { Scope } from '../../src/kernel/principal.ts';
import type { Database } from '../../src/storage/database.ts';
import { openTestDatabase, secretFileFor } from './database.ts';

export interface Harness {
  app: App;
  db: Database;
  dbUrl: string;
  url: string;
  clock: ManualClock;
  /** A new organization with an owner, a shop and an API key holding `scopes`. */
  merchant(scopes?: readonly Scope[], name?: string): Promise<BootstrapResult>;
  /** A staff session for a new user marked as service staff (staff sessions are checked against `users.is_staff`). */
  staffToken(): Promise<string>;
  /** For a failed test's report: the requests the server has read and not answered yet, with how long (paths only). */
  inFlight(): string[];
  close(): Promise<void>;
}

export const ALL_MERCHANT_SCOPES: readonly Scope[] = ['merchant:read', 'merchant:write', 'merchant:admin'];

/**
 * `opts.log`: the server's logger (default: silent), e.g. one that keeps its lines for a test to read. `opts.guardPool`
 * (default true): code inside a transaction that asks the pool for a second connection fails at once
 * (`SecondConnectionError`).
 */
export async function startHarness(
  env: Record<string, string> = {},
  opts: { log?: Logger; guardPool?: boolean } = {},
): Promise<Harness> {
  const { db, url: dbUrl } = await openTestDatabase({ guardPool: opts.guardPool });
  // Admission control refuses by measured latency; on a loaded test machine only the tests about it turn it on.
  const config: Config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATABASE_URL: dbUrl,
    TESSERA_SECRET_FILE: secretFileFor(dbUrl),
    RESERVE_MAX_WAIT_MS: '60000',
    ...env,
  });
  const clock = new ManualClock(new Date());
  const app = await createApp(config, db, { clock, log: opts.log ?? pino({ level: 'silent' }) });
  // The calls being answered are kept for a failed test's report (`inFlight`). Connections are kept alive as in
  // production: the server keeps an idle one longer than a client reuses it (src/app.ts, test/rest/keep-alive.test.ts).
  const answering = new Set<{ what: string; at: number }>();
  app.koa.middleware.unshift(async (ctx, next) => {
    const call = { what: `${ctx.method} ${ctx.path}`, at: performance.now() };
    answering.add(call);
    try {
      await next();
    } finally {
      answering.delete(call);
    }
  });
  const url = await app.listen();
  let n = 0;
  return {
    app,
    db,
    dbUrl,
    url,
    clock,
    async merchant(scopes = ALL_MERCHANT_SCOPES, name = `Org ${++n}`) {
      return db.transaction((em) =>
        bootstrapOrganization(
          em,
          { organization: name, email: `owner${n}-${Date.now()}@example.test`, shop: `${name} Shop`, scopes },
          clock.now(),
        ),
      );
    },
    async staffToken() {
      const id = `usr_staff${++n}${Date.now().toString(36)}`;
      await db.execute('insert into users (id, email, name, is_staff, created_at) values (?, ?, null, true, now())', [
        id,
        `${id}@example.test`,
      ]);
      return app.authenticator.sign({ typ: 'staff', sub: id }, 3600);
    },
    inFlight() {
      const now = performance.now();
      return [...answering].map(
        (c) => `the server is still answering ${c.what} (read ${((now - c.at) / 1000).toFixed(1)} s ago)`,
      );
    },
    async close() {
      await closeWithin(app.close(), 'the server', db);
      await closeWithin(db.close(), 'the database', db);
    },
  };
}

/** How long a harness's server or database may take to close before the test fails with a report. */
const CLOSE_DEADLINE_MS = 60_000;

/**
 * Awaits `closing`; if it is not done within CLOSE_DEADLINE_MS, fails with what the database's pool still holds (each
 * connection checked out, with the statement it runs or waits to send) and ends those connections, so a close that
 * hangs fails its test with a report instead of keeping the test process alive.
 */
async function closeWithin(closing: Promise<void>, what: string, db: Database): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((ok) => (timer = setTimeout(() => ok('late'), CLOSE_DEADLINE_MS)));
  try {
    if ((await Promise.race([closing, late])) !== 'late') return;
  } finally {
    clearTimeout(timer);
  }
  const pool = db.driver.pool as unknown as
    | undefined
    | {
        totalCount: number;
        idleCount: number;
        waitingCount: number;
        _clients: {
          _activeQuery?: { text?: string } | null;
          _queryQueue?: { text?: string }[];
          connection?: { stream?: { destroy(): void } };
        }[];
        _idle: { client: unknown }[];
      };
  const idle = new Set(pool?._idle.map((i) => i.client));
  const out = (pool?._clients ?? []).filter((c) => !idle.has(c));
  const report = out.map(
    (c, i) =>
      `  connection ${i + 1}: running ${c._activeQuery?.text?.slice(0, 200) ?? 'nothing'}; ${c._queryQueue?.length ?? 0} queued${c._queryQueue?.length ? `, first ${c._queryQueue[0]?.text?.slice(0, 200)}` : ''}`,
  );
  for (const c of pool?._clients ?? []) c.connection?.stream?.destroy();
  throw new Error(
    `${what} did not close within ${CLOSE_DEADLINE_MS / 1000} s; the pool had ${pool?.totalCount ?? '?'} connections, ${pool?.idleCount ?? '?'} idle, ${pool?.waitingCount ?? '?'} callers waiting:\n${report.join('\n')}`,
  );
}
