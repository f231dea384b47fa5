/** Configuration: parsed once from the environment at start-up; nothing else reads process.env. */
import { join } from 'node:path';
import { z } from 'zod';

const LogLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/** Where the embedded PostgreSQL and generated files live when TESSERA_DATA_DIR is unset (relative to the cwd). */
export const DEFAULT_DATA_DIR = './.tessera';

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  PUBLIC_URL: z.url().optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  TESSERA_DATA_DIR: z.string().min(1).default(DEFAULT_DATA_DIR),
  TESSERA_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /**
   * Where the generated server secret is kept when TESSERA_SECRET is unset; unset or empty:
   * `<TESSERA_DATA_DIR>/server-secret`.
   */
  TESSERA_SECRET_FILE: z.string().optional(),
  TESSERA_TOKEN: z.string().optional(),
  LOG_LEVEL: LogLevel.default('info'),
  SANDBOX_SETTLE_MS: z.coerce.number().int().min(0).default(3000),
  SANDBOX_WEBHOOK_SECRET: z.string().min(16).optional(),
  SANDBOX_DISPATCH_MS: z.coerce.number().int().min(0).default(500),
  SWEEP_INTERVAL_MS: z.coerce.number().int().min(0).default(5000),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  MAIL_FROM: z.string().default('Tessera <no-reply@tessera.local>'),
  SMTP_TIMEOUT_MS: z.coerce.number().int().min(100).max(120000).default(10000),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  /** Sign-in, code and token endpoints; unset: a twentieth of RATE_LIMIT_PER_MINUTE, at least 5. */
  RATE_LIMIT_STRICT_PER_MINUTE: z.coerce.number().int().min(1).optional(),
  /**
   * Path of the mandate trust list (docs/signed-mandates.md); unset or empty:
   * `<TESSERA_DATA_DIR>/mandate-trust-list.json`, optional.
   */
  MANDATE_TRUST_LIST: z.string().optional(),
  WEBHOOK_DISPATCH_MS: z.coerce.number().int().min(0).default(1000),
  RESERVE_BATCH_MAX: z.coerce.number().int().min(1).max(1000).default(64),
  RESERVE_BATCHES_IN_FLIGHT: z.coerce.number().int().min(1).max(16).default(1),
  RESERVE_MAX_WAIT_MS: z.coerce.number().int().min(1).max(60000).default(250),
  /**
   * `owner`: the reserves of every process go to one owner process's batcher (docs/scaling.md); `off`: each process
   * batches its own.
   */
  RESERVE_ROUTING: z.enum(['off', 'owner']).default('off'),
  /**
   * Listening sockets on the port (SO_REUSEPORT; src/http/listen.ts): a turn of the event loop accepts one connection
   * per socket, so a sale's opening is accepted 16 at a time, not one. 16 on Linux; 1 elsewhere (Node's `reusePort`
   * fails on platforms without SO_REUSEPORT's load balancing, macOS among them). 1 gives an ordinary socket.
   */
  LISTEN_SOCKETS: z.coerce
    .number()
    .int()
    .min(1)
    .max(64)
    .default(process.platform === 'linux' ? 16 : 1),
  /**
   * The longest a client may take to send one request, headers and body, from its first byte: past it the server
   * answers 408 `request_timeout` and closes the connection (Node's `server.requestTimeout`, checked every 1/4 of it,
   * at most every 5 s). Node's default was 300 s; idle keep-alive connections are not requests and keep their own
   * timeout.
   */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(300000).default(30000),
  /** How long a call waits for a free pooled database connection before it is answered 503 (never a hang). */
  DATABASE_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().min(50).max(600000).default(10000),
  /**
   * Statements sent again and again go as named prepared statements (src/storage/prepared-statements.ts); `off` for a
   * connection pooler in transaction mode that cannot carry them (PgBouncer before 1.21).
   */
  DATABASE_PREPARED_STATEMENTS: z.enum(['on', 'off']).default('on'),
  /** Development only: webhooks may target loopback (and plain http:// to it). */
  WEBHOOK_ALLOW_LOOPBACK: z.enum(['true', 'false']).default('false'),
  /** Development only: OAuth client ID metadata documents may be served from loopback (certificate not verified). */
  OAUTH_CLIENT_ID_DOCUMENTS_ALLOW_LOOPBACK: z.enum(['true', 'false']).default('false'),
});

export type Config = {
  port: number;
  host: string;
  publicUrl: string | undefined;
  databaseUrl: string | undefined;
  dataDir: string;
  secret: string | undefined;
  /** The key file holding the generated server secret when `secret` is unset (src/storage/server-secret.ts). */
  secretFile: string;
  token: string | undefined;
  logLevel: z.infer<typeof LogLevel>;
  sandboxSettleMs: number;
  sandboxWebhookSecret: string | undefined;
  /** How often the sandbox provider settles due charges and sends their events, in ms; 0 turns the loop off. */
  sandboxDispatchMs: number;
  /** How often expired holds are swept, in ms; 0 turns the loop off (tests call sweepExpiredHolds). */
  sweepIntervalMs: number;
  smtpUrl: string | undefined;
  mailFrom: string;
  /** Connection, greeting and socket timeout for SMTP delivery, in ms. */
  smtpTimeoutMs: number;
  rateLimitPerMinute: number;
  /** The budget of sign-in, code and token endpoints (tools with `rateLimit: 'strict'`), per minute. */
  rateLimitStrictPerMinute: number;
  mandateTrustList: string | undefined;
  /** How often the webhook dispatcher polls the outbox, in ms; 0 turns the loop off (tests call dispatchOnce). */
  webhookDispatchMs: number;
  /** Reserves grouped into one transaction at most (docs/performance.md, the hot pool). */
  reserveBatchMax: number;
  /** Reserve batches one process runs at once; the next batch takes everything queued meanwhile. */
  reserveBatchesInFlight: number;
  /** Admission control: a reserve whose expected queueing wait exceeds this is refused at once (429 rate_limited). */
  reserveMaxWaitMs: number;
  /** `owner`: reserves are batched by one owner process (src/domain/purchase/pool-owners.ts); `off`: locally. */
  reserveRouting: 'off' | 'owner';
  /** Listening sockets on the port: new connections accepted per turn of the event loop (src/http/listen.ts). */
  listenSockets: number;
  /** The longest a client may take to send one request (headers and body); then 408 and the connection is closed. */
  requestTimeoutMs: number;
  /** Development only: webhook subscriptions and deliveries may target loopback addresses. */
  webhookAllowLoopback: boolean;
  /** Development only: client ID metadata documents may be fetched from loopback (docs/oauth.md). */
  oauthClientIdDocumentsAllowLoopback: boolean;
  /** The longest wait for a pooled database connection; past it the call gets 503 `unavailable` with Retry-After. */
  databaseAcquireTimeoutMs: number;
  /** Whether repeated statements are sent as named prepared statements. */
  databasePreparedStatements: boolean;
};

/** Thrown when the environment is invalid; the message names every bad variable. */
export class ConfigError extends Error {}

/** Parses the environment (default: process.env) into a Config, or throws ConfigError naming the variables. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    publicUrl: e.PUBLIC_URL,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.TESSERA_DATA_DIR,
    secret: e.TESSERA_SECRET,
    secretFile: e.TESSERA_SECRET_FILE || join(e.TESSERA_DATA_DIR, 'server-secret'),
    token: e.TESSERA_TOKEN,
    logLevel: e.LOG_LEVEL,
    sandboxSettleMs: e.SANDBOX_SETTLE_MS,
    sandboxWebhookSecret: e.SANDBOX_WEBHOOK_SECRET,
    sandboxDispatchMs: e.SANDBOX_DISPATCH_MS,
    sweepIntervalMs: e.SWEEP_INTERVAL_MS,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    smtpTimeoutMs: e.SMTP_TIMEOUT_MS,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    rateLimitStrictPerMinute: e.RATE_LIMIT_STRICT_PER_MINUTE ?? Math.max(5, Math.floor(e.RATE_LIMIT_PER_MINUTE / 20)),
    mandateTrustList: e.MANDATE_TRUST_LIST,
    webhookDispatchMs: e.WEBHOOK_DISPATCH_MS,
    reserveBatchMax: e.RESERVE_BATCH_MAX,
    reserveBatchesInFlight: e.RESERVE_BATCHES_IN_FLIGHT,
    reserveMaxWaitMs: e.RESERVE_MAX_WAIT_MS,
    reserveRouting: e.RESERVE_ROUTING,
    listenSockets: e.LISTEN_SOCKETS,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    webhookAllowLoopback: e.WEBHOOK_ALLOW_LOOPBACK === 'true',
    oauthClientIdDocumentsAllowLoopback: e.OAUTH_CLIENT_ID_DOCUMENTS_ALLOW_LOOPBACK === 'true',
    databaseAcquireTimeoutMs: e.DATABASE_ACQUIRE_TIMEOUT_MS,
    databasePreparedStatements: e.DATABASE_PREPARED_STATEMENTS === 'on',
  };
}
