/** The request log: one structured JSON line per HTTP request that reaches Koa (docs/operations in the README). */
import { randomUUID } from 'node:crypto';
import type { Context, Middleware, Next } from 'koa';
import type { Logger } from 'pino';

/** `ctx.state` key under which a surface records the kind of the authenticated caller (`Principal['kind']`). */
export const PRINCIPAL_KIND_STATE = 'principalKind';

/** Operations paths polled by probes and scrapers: logged at `debug`, so `info` holds the traffic that matters. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

/** A caller's own `X-Request-Id` is kept only when it is this plain (no spaces, quotes or control characters). */
const CALLER_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The id of a request: the caller's `X-Request-Id` when plain, else a new UUID. */
export function requestIdOf(given: string | undefined): string {
  return given && CALLER_ID.test(given) ? given : randomUUID();
}

/**
 * One `info` line per request (`msg: "request"`): `requestId` (the caller's `X-Request-Id` when plain, else a new
 * UUID; echoed as the `X-Request-Id` response header), `method`, `route` (the matched route pattern, `unmatched` when
 * none: never the raw URL, its ids or its query), `status`, `durationMs` and `principal` (the caller's kind, when a
 * surface recorded it). Never a header, a body, a credential or a personal field. Placed outside the error guard, so
 * the status is the one sent.
 */
export function requestLog(log: Logger): Middleware {
  return async (ctx: Context, next: Next) => {
    const started = performance.now();
    const requestId = requestIdOf(ctx.get('x-request-id'));
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      const line = {
        requestId,
        method: ctx.method,
        route: (ctx as Context & { _matchedRoute?: string })._matchedRoute ?? 'unmatched',
        status: ctx.status,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        principal: ctx.state[PRINCIPAL_KIND_STATE] as string | undefined,
      };
      if (PROBES.has(ctx.path)) log.debug(line, 'request');
      else log.info(line, 'request');
    }
  };
}
