/** Small HTTP helpers shared by the REST, MCP and A2A routes: credentials, request info, error bodies. */
import type { Context } from 'koa';
import type { RateGate, RequestInfo } from '../domain/context.ts';
import type { ErrorBody } from '../kernel/errors.ts';

/** An `Authorization` header carrying a bearer credential; the credential is the first group. */
export const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The bearer credential of a request, without the scheme; undefined when absent. */
export function bearerOf(ctx: Context): string | undefined {
  const m = BEARER.exec(ctx.get('authorization'));
  return m?.[1];
}

/** The browser's languages, most preferred first (Koa's Accept-Language negotiation; `*` dropped). */
function languagesOf(ctx: Context): string[] {
  return ctx.acceptsLanguages().filter((l) => l !== '*');
}

/** Where the rate-limit middleware keeps the request's gate (`src/http/rate-limit.ts`). */
export const RATE_GATE_STATE = 'rateGate';

export function requestInfo(ctx: Context, surface: RequestInfo['surface']): RequestInfo {
  const headers: Record<string, string> = {};
  for (const name of ['api-version', 'user-agent']) {
    const v = ctx.get(name);
    if (v) headers[name] = v;
  }
  const info: RequestInfo = { surface, headers, languages: languagesOf(ctx) };
  const origin = ctx.get('origin');
  if (origin) info.origin = origin;
  const requestId = ctx.response.get('x-request-id');
  if (requestId) info.requestId = requestId;
  const rate = ctx.state[RATE_GATE_STATE] as RateGate | undefined;
  if (rate) info.rate = rate;
  return info;
}

/** Writes an error body with its status; 429 and in-flight 409 carry a matching Retry-After header. */
export function sendError(ctx: Context, status: number, error: ErrorBody): void {
  ctx.status = status;
  const retry = error.retryAfter;
  if (retry !== undefined) ctx.set('Retry-After', String(retry));
  if (status === 401) ctx.set('WWW-Authenticate', 'Bearer');
  ctx.body = error;
}
