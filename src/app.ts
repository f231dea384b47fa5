/** Composition root: builds the services, the orchestrator and every surface from one config. No singletons. */
import { createServer, type Server } from 'node:http';
import { answerClientError } from './http/client-error.ts';
import { listenHttp, type Listening } from './http/listen.ts';
import Koa from 'koa';
import type { Logger } from 'pino';
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { Config } from './kernel/config.ts';
import { Identity } from './kernel/identity.ts';
import { loadCatalogs } from './i18n/i18n.ts';
import { createLogger } from './log.ts';
import { Mailer } from './mail/mailer.ts';
import { TrustList, trustListLocation } from './mandates/trust-list.ts';
import { Authenticator } from './orchestrator/authenticate.ts';
import { ToolError } from './kernel/errors.ts';
import { systemClock, type Clock } from './kernel/clock.ts';
import { Orchestrator } from './orchestrator/invoke.ts';
import { HoldSweeper } from './domain/purchase/sweeper.ts';
import { OrderMailQueue } from './domain/purchase/order-mail.ts';
import { TicketKeys } from './tickets/ticket-keys.ts';
import { Payments } from './payments/payments.ts';
import type { Services } from './domain/context.ts';
import { buildRestRouter } from './app-router.ts';
import { OAuthServer } from './protocols/oauth/server.ts';
import { errorGuard, HttpMetrics, noStoreByDefault } from './http/middleware.ts';
import { requestLog } from './http/request-log.ts';
import { rateLimit, RateLimits } from './http/rate-limit.ts';
import { registerBudgetMetrics } from './http/budget-charges.ts';
import { securityHeaders, setSecurityHeaders } from './http/security-headers.ts';
import { buyerApiCors } from './http/cors.ts';
import type { Database } from './storage/database.ts';
import { openServerSecret } from './storage/server-secret.ts';
import { deriveKey, requestHasher } from './kernel/server-secret.ts';
import { vaultTokenHasher } from './kernel/tokens.ts';
import { resolve } from 'node:path';
import { TOOLS } from './tools/index.ts';
import { admitBeforeKoa, admitBeforeRouting } from './http/early-admission.ts';
import { registerAdmissionMetrics } from './http/admission-metrics.ts';
import { registerBusinessMetrics } from './http/business-metrics.ts';
import { businessEventLog } from './http/business-event-log.ts';
import { registerQueueLagMetrics } from './http/queue-lag-metrics.ts';
import { reserveBatcher } from './domain/purchase/reserve-batcher.ts';
import { WebhookDispatcher } from './webhooks/dispatcher.ts';
import { SecretBox } from './webhooks/secret-box.ts';
import { startReserveRouting } from './reserve-routing.ts';
import { registerRoutingMetrics } from './http/routing-metrics.ts';

/** The listening socket's accept queue (see listen). */
const LISTEN_BACKLOG = 4096;

export interface AppOptions {
  clock?: Clock;
  log?: Logger;
}

export interface App {
  config: Config;
  services: Services;
  /**
   * Releases expired holds (`sweepExpiredHolds(now, limit)`), reconciles unknown payment outcomes and retries owed
   * refunds.
   */
  sweeper: HoldSweeper;
  /** Sends the buyers' order e-mails in the background (`idle()` resolves once the passes asked for have run). */
  orderMail: OrderMailQueue;
  orchestrator: Orchestrator;
  authenticator: Authenticator;
  koa: Koa;
  metrics: Registry;
  /** Listens on config.host:config.port (0 picks a free port) and returns the base URL. */
  listen(): Promise<string>;
  /** The base URL once listening (PUBLIC_URL when configured). */
  url(): string;
  /** Stops background work and the HTTP server; the database is the caller's to close. */
  close(): Promise<void>;
}

export async function createApp(config: Config, db: Database, opts: AppOptions = {}): Promise<App> {
  const log = opts.log ?? createLogger(config.logLevel);
  const clock = opts.clock ?? systemClock;
  // TESSERA_SECRET or the key file; the database holds only its fingerprint (src/storage/server-secret.ts).
  const { secret, notices } = await openServerSecret(db, {
    configured: config.secret,
    keyFilePath: resolve(config.secretFile),
  });
  for (const notice of notices) log.info(notice);
  let baseUrl = config.publicUrl ?? `http://${config.host}:${config.port}`;
  const webhooks = new WebhookDispatcher({
    db,
    clock,
    log,
    serverSecret: secret,
    allowLoopback: config.webhookAllowLoopback,
    publicUrl: () => baseUrl,
  });
  const mandateTrust = await TrustList.open({ ...trustListLocation(config), clock, log });
  const sandboxSecret =
    config.sandboxWebhookSecret ?? deriveKey(secret, 'tessera/sandbox-webhook-signing').toString('base64url');
  const payments = new Payments({
    db,
    clock,
    log,
    publicUrl: () => baseUrl,
    webhookSecret: sandboxSecret,
    settleMs: config.sandboxSettleMs,
    serverSecret: secret,
  });
  const ticketKeys = new TicketKeys({ db, clock, serverSecret: secret });
  await ticketKeys.ensureActive();
  const authenticator = new Authenticator(secret, db, clock, () => baseUrl);
  const identity = new Identity(secret, (claims, ttl) => authenticator.sign(claims, ttl));
  const mail = new Mailer({
    db,
    clock,
    log,
    smtpUrl: config.smtpUrl,
    from: config.mailFrom,
    timeoutMs: config.smtpTimeoutMs,
  });
  const catalogs = loadCatalogs();
  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics });
  registerQueueLagMetrics(metrics, { db, clock, log });
  const orderMail = new OrderMailQueue({
    db,
    mail,
    catalogs,
    clock,
    payments,
    publicUrl: () => baseUrl,
    log: log.child({ component: 'order-mail' }),
  });
  const services: Services = {
    config,
    db,
    clock,
    publicUrl: () => baseUrl,
    webhooks,
    mandateTrust,
    payments,
    identity,
    mail,
    orderMail,
    catalogs,
    ticketKeys,
    vaultTokenHash: vaultTokenHasher(secret),
    metrics: registerBusinessMetrics(metrics),
    events: businessEventLog(log),
  };
  const oauth = new OAuthServer(services, secret, log);
  const sweeper = new HoldSweeper({ ...services, log: log.child({ component: 'sweeper' }) });
  const orchestrator = new Orchestrator({
    tools: TOOLS,
    services,
    // OAuth access tokens are accepted only where they are addressed: the MCP endpoint (RFC 8707 audience).
    // A page session (cookie) is read by REST alone (docs/console.md, "Sessions"): any other surface is refused it.
    authenticate: (c, surface, page) =>
      page
        ? surface === 'rest' && c
          ? authenticator.pageSession(page, c)
          : Promise.reject(new ToolError('unauthenticated', 'A page session is accepted only by the REST API.'))
        : surface === 'mcp' && oauth.isAccessToken(c)
          ? oauth.authenticate(c)
          : authenticator.authenticate(c),
    pageSessions: authenticator,
    log,
    replaySealer: new SecretBox(secret, 'tessera/idempotent-replays'),
    requestHash: requestHasher(secret),
  });
  // RESERVE_ROUTING=owner: one owner process batches every process's reserves (docs/scaling.md).
  const routing =
    config.reserveRouting === 'owner'
      ? await startReserveRouting({
          services,
          tool: orchestrator.get('reserve')!,
          log,
          secret,
          replaySealer: new SecretBox(secret, 'tessera/idempotent-replays'),
        })
      : undefined;
  const koa = new Koa({ proxy: false });
  koa.use(securityHeaders());
  koa.use(requestLog(log)); // outside the error guard: it logs the status sent
  koa.use(errorGuard(log));
  const httpMetrics = new HttpMetrics(metrics);
  registerAdmissionMetrics(metrics, () => reserveBatcher(services).admissions);
  if (routing) registerRoutingMetrics(metrics, routing.router);
  koa.use(httpMetrics.middleware());
  koa.use(noStoreByDefault());
  // CORS on the buyer API for the shops' embed origins only (bearer only; src/domain/buyers/embed-access.ts).
  koa.use(buyerApiCors(services, (bearer) => authenticator.authenticate(bearer)));
  const rateLimits = new RateLimits(db, {
    perMinute: config.rateLimitPerMinute,
    strictPerMinute: config.rateLimitStrictPerMinute,
  });
  registerBudgetMetrics(metrics, rateLimits.charges);
  koa.use(rateLimit(rateLimits));
  koa.use(admitBeforeRouting(orchestrator));
  const router = buildRestRouter({ orchestrator, services, metrics, log, oauth });
  koa.use(router.routes());
  koa.use(router.allowedMethods({ throw: false }));
  let server: Server | undefined;
  let listening: Listening | undefined;
  webhooks.start(config.webhookDispatchMs);
  sweeper.start(config.sweepIntervalMs);
  orderMail.start(config.sweepIntervalMs);
  return {
    config,
    services,
    sweeper,
    orderMail,
    orchestrator,
    authenticator,
    koa,
    metrics,
    url: () => baseUrl,
    async listen() {
      // A reserve refused for load is answered before Koa (admitBeforeKoa, src/http/early-admission.ts), with what
      // Koa would give it.
      const early = {
        orchestrator,
        metrics: httpMetrics,
        securityHeaders: setSecurityHeaders(),
        chargeAddress: (ip: string) => void rateLimits.chargeAddress(ip).catch(() => undefined),
      };
      // A client has REQUEST_TIMEOUT_MS to send a whole request (Node's default was 300 s): past it, 408 and the
      // connection is closed (answerClientError). Node checks its connections every `connectionsCheckingInterval`.
      const checkEvery = Math.min(5_000, Math.max(25, Math.floor(config.requestTimeoutMs / 4)));
      // Koa's listener answers its own errors (ctx.onerror, the app's 'error' event) and never rejects: void is safe.
      const koaListener = koa.callback();
      const listener = admitBeforeKoa(early, (req, res) => void koaListener(req, res));
      server = createServer({ connectionsCheckingInterval: checkEvery }, listener);
      server.requestTimeout = config.requestTimeoutMs;
      server.on('clientError', answerClientError);
      // Idle keep-alive connections outlive any client's own idle timeout (undici: the server's hint less a margin),
      // so a client never sends on a socket the server is closing (an ECONNRESET under load otherwise).
      server.keepAliveTimeout = 65_000;
      // Never above requestTimeout: Node swaps the two when it is, and the request bound would become 66 s.
      server.headersTimeout = Math.min(66_000, config.requestTimeoutMs);
      // A flash sale opens hundreds of connections at once; Node's default accept queue (511) overflows while the
      // event loop is busy, and the kernel then drops the connection's handshake, which the client resends a second
      // later. The kernel caps this at net.core.somaxconn (4096 on current Linux). Several listening sockets
      // (LISTEN_SOCKETS) accept that many connections per turn of the loop (src/http/listen.ts).
      listening = await listenHttp(server, {
        port: config.port,
        host: config.host,
        sockets: config.listenSockets,
        backlog: LISTEN_BACKLOG,
      });
      const port = listening.port;
      const host = config.host.includes(':') ? `[${config.host}]` : config.host;
      if (!config.publicUrl) baseUrl = `http://${host}:${port}`;
      payments.start(config.sandboxDispatchMs);
      return baseUrl;
    },
    async close() {
      await routing?.close();
      await Promise.all([webhooks.stop(), payments.stop(), sweeper.stop(), orderMail.stop()]);
      mail.close();
      const extraClosed = listening?.close(); // stops accepting now; done once the connections below are closed
      if (server) {
        server.closeAllConnections();
        await new Promise<void>((ok) => server!.close(() => ok()));
      }
      await extraClosed;
    },
  };
}
