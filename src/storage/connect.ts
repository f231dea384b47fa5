/** Opens the configured database (a real server via DATABASE_URL, else the embedded one) and applies migrations. */
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../kernel/config.ts';
import { startPhase } from '../kernel/start-phase.ts';
import { Database } from './database.ts';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from './embedded-postgres.ts';

export interface Connected {
  db: Database;
  embedded: EmbeddedPostgresHandle | undefined;
  /** Closes the connection pool and stops the embedded server, if one was started. */
  close(): Promise<void>;
}

/**
 * Where the data lives, for the start line and operators: `{ database: "host:port/name" }` for DATABASE_URL (never its
 * user or password), else `{ dataDir }`, the embedded PostgreSQL's data directory (absolute).
 */
export function databaseLocation(config: Config): { database: string } | { dataDir: string } {
  if (!config.databaseUrl) return { dataDir: resolve(config.dataDir) };
  const url = URL.parse(config.databaseUrl);
  return { database: url ? `${url.hostname}:${url.port || 5432}${url.pathname}` : 'DATABASE_URL' };
}

/**
 * Opens the configured database and applies its migrations. Without DATABASE_URL the embedded PostgreSQL is started,
 * unless `starting` is its start already under way (`tessera serve` begins it before loading the rest of the server).
 */
export async function connectDatabase(
  config: Config,
  log: Logger,
  starting?: Promise<EmbeddedPostgresHandle>,
): Promise<Connected> {
  let embedded: EmbeddedPostgresHandle | undefined;
  let url = config.databaseUrl;
  let at = performance.now();
  if (!url) {
    embedded = await (starting ??
      startEmbeddedPostgres(config.dataDir, (line) => log.debug({ postgres: line }, 'embedded postgres')));
    url = embedded.url;
    for (const [phase, ms] of Object.entries(embedded.timings)) log.debug({ startPhase: phase, ms }, 'start phase');
    at = startPhase(log, 'embedded postgres', at);
    for (const notice of embedded.notices) log.info({ clusterDir: embedded.clusterDir }, notice);
    log.info(
      { dataDir: config.dataDir, port: embedded.port },
      embedded.shared ? 'joined the embedded PostgreSQL another Tessera process runs' : 'embedded PostgreSQL started',
    );
  }
  const db = await Database.open(url, {
    acquireTimeoutMs: config.databaseAcquireTimeoutMs,
    preparedStatements: config.databasePreparedStatements,
  });
  at = startPhase(log, 'orm init', at);
  try {
    const applied = await db.migrate();
    startPhase(log, 'migrations', at);
    if (applied.length) log.info({ migrations: applied }, 'migrations applied');
  } catch (err) {
    await db.close();
    await embedded?.stop();
    throw err;
  }
  return {
    db,
    embedded,
    async close() {
      await db.close();
      await embedded?.stop();
    },
  };
}
