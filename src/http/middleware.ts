/** Cross-cutting HTTP middleware: the last-resort error guard and request metrics (rate limits: `rate-limit.ts`). */
import type { Context, Middleware, Next } from 'koa';
import type { Logger } from 'pino';
import { Counter, Histogram, type Registry } from 'prom-client';
import { describeError, ToolError } from '../kernel/errors.ts';
import { sendError } from './http.ts';
import { isDatabaseUnavailable } from '../storage/database.ts';

/**
 * Anything that escapes a route becomes a generic 500 body (503 `unavailable` with `Retry-After` when the database is
 * lost); the cause is logged without its stack.
 */
export function errorGuard(log: Logger) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } catch (err) {
      const lost = !(err instanceof ToolError) && isDatabaseUnavailable(err);
      const e =
        err instanceof ToolError
          ? err
          : lost
            ? new ToolError('unavailable', 'The database is unavailable right now; retry shortly.', undefined, 2)
            : new ToolError('internal_error');
      if (lost) log.warn({ path: ctx.path, err: describeError(err) }, 'database unavailable');
      else if (!(err instanceof ToolError)) {
        log.error({ path: ctx.path, err: describeError(err) }, 'unhandled error');
      }
      sendError(ctx, e.status, e.toBody());
    }
  };
}

/** Request counts and latency by matched route, on the app's own registry. */
export class HttpMetrics {
  private readonly requests: Counter;
  private readonly latency: Histogram;

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: 'tessera_http_requests_total',
      help: 'HTTP requests by method, route and status.',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    });
    this.latency = new Histogram({
      name: 'tessera_http_request_duration_seconds',
      help: 'HTTP request latency by method and route.',
      labelNames: ['method', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    });
  }

  /** Counts one answered request, `startedMs` being its `performance.now()` when it arrived. */
  record(method: string, route: string, status: number, startedMs: number): void {
    this.latency.observe({ method, route }, (performance.now() - startedMs) / 1000);
    this.requests.inc({ method, route, status: String(status) });
  }

  /** The Koa middleware: every request, under the route the router matched (`unmatched` when none did). */
  middleware(): Middleware {
    return async (ctx: Context, next: Next) => {
      const started = performance.now();
      try {
        await next();
      } finally {
        this.record(
          ctx.method,
          (ctx as Context & { _matchedRoute?: string })._matchedRoute ?? 'unmatched',
          ctx.status,
          started,
        );
      }
    };
  }
}

/**
 * `Cache-Control: no-store` unless a route says otherwise: API answers are per caller and some carry a secret (an API
 * key, an agent token, a session, a webhook secret), so no shared or browser cache may keep them. Routes that serve
 * public, cacheable documents (the docs page, the ACP discovery document) set their own header.
 */
export function noStoreByDefault() {
  return async (ctx: Context, next: Next) => {
    ctx.set('Cache-Control', 'no-store');
    await next();
  };
}
