/**
 * The ACP REST binding: protocol-shaped routes (`/checkout_sessions…`, `/agentic_commerce/delegate_payment`,
 * `/.well-known/acp.json`) translated onto the ACP tools via orchestrator.invoke. It only translates: the
 * API-Version and Idempotency-Key headers become the binding's `meta`, the path id `id`, the body `payload`;
 * results keep the tool's status, errors become ACP's flat Error. No business logic lives here.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import { ToolError } from '../../kernel/errors.ts';
import type { InvokeResult, Orchestrator } from '../../orchestrator/invoke.ts';
import { bearerOf, requestInfo } from '../../http/http.ts';
import { parseJsonObject, readRaw } from '../../http/read-body.ts';
import { toAcpError } from './errors.ts';
import { checkAcpVersion } from '../../domain/acp/versions.ts';

export interface AcpRouterDeps {
  orchestrator: Orchestrator;
}

/** ACP headers carried into `meta` (header name → meta field). */
const META_HEADERS: Record<string, string> = {
  'request-id': 'request_id',
  'user-agent': 'user_agent',
  'accept-language': 'accept_language',
  signature: 'signature',
  timestamp: 'timestamp',
};

interface Route {
  tool: string;
  /** POST routes need an Idempotency-Key and read a body. */
  post: boolean;
  /** The body may be absent (cancel). */
  optionalBody?: boolean;
}

function sendAcpError(ctx: Context, status: number, error: ReturnType<ToolError['toBody']>, tool?: string): void {
  ctx.status = status;
  if (error.retryAfter !== undefined) ctx.set('Retry-After', String(error.retryAfter));
  if (status === 401) ctx.set('WWW-Authenticate', 'Bearer');
  // RFC 9110 §15.5.6: a 405 names the methods the resource supports now. A completed or canceled session's cancel
  // supports none (its POST is what was refused): an empty Allow.
  if (status === 405 && !ctx.response.get('Allow')) ctx.set('Allow', '');
  ctx.body = toAcpError(status, error, 'body', tool);
}

function respond(ctx: Context, result: InvokeResult, tool?: string): void {
  if (result.replayed) ctx.set('Idempotent-Replayed', 'true');
  if (!result.ok) return sendAcpError(ctx, result.status, result.error, tool);
  ctx.status = result.status;
  ctx.body = result.output;
}

/** Builds the tool input `{ meta, id?, payload? }` from the request, or throws the ACP-level refusal. */
async function inputOf(ctx: Context, route: Route): Promise<Record<string, unknown>> {
  const meta: Record<string, unknown> = { api_version: checkAcpVersion(ctx.get('api-version') || undefined) };
  for (const [header, field] of Object.entries(META_HEADERS)) {
    const v = ctx.get(header);
    if (v) meta[field] = v;
  }
  const input: Record<string, unknown> = { meta };
  const id = (ctx.params as Record<string, string | undefined>).id;
  if (id !== undefined) input.id = id;
  if (!route.post) return input;
  const key = ctx.get('idempotency-key');
  if (!key) throw new ToolError('missing_idempotency_key', 'Idempotency-Key header is required on all POST requests.');
  if (key.length > 255) throw new ToolError('invalid_input', 'The Idempotency-Key must be at most 255 characters.');
  meta.idempotency_key = key;
  const raw = await readRaw(ctx.req);
  if (raw.length > 0 || !route.optionalBody) input.payload = parseJsonObject(raw, ctx.get('content-type') || undefined);
  return input;
}

function handler(orchestrator: Orchestrator, route: Route) {
  return async (ctx: Context) => {
    if (route.post) {
      const key = ctx.get('idempotency-key');
      if (key) ctx.set('Idempotency-Key', key);
    }
    let input: Record<string, unknown>;
    try {
      input = await inputOf(ctx, route);
    } catch (err) {
      const e = err instanceof ToolError ? err : new ToolError('invalid_input');
      return sendAcpError(ctx, e.status, e.toBody(), route.tool);
    }
    const result = await orchestrator.invoke({
      tool: route.tool,
      input,
      credential: bearerOf(ctx),
      idempotencyKey: ctx.get('idempotency-key') || undefined,
      request: requestInfo(ctx, 'rest'),
    });
    respond(ctx, result, route.tool);
  };
}

/** 405 with Allow for a method an ACP path does not serve. */
function notAllowed(allow: string) {
  return (ctx: Context) => {
    ctx.set('Allow', allow);
    sendAcpError(
      ctx,
      405,
      new ToolError('method_not_allowed', `${ctx.method} is not allowed here; use ${allow}.`).toBody(),
    );
  };
}

export function buildAcpRouter({ orchestrator }: AcpRouterDeps): Router {
  const router = new Router();
  // `Request-Id` is echoed on every ACP answer: results, refusals, 405s and the discovery document.
  router.use(async (ctx, next) => {
    const requestId = ctx.get('request-id');
    if (requestId) ctx.set('Request-Id', requestId);
    await next();
  });
  router.get('/.well-known/acp.json', async (ctx) => {
    const result = await orchestrator.invoke({
      tool: 'get_acp_discovery',
      input: {},
      request: requestInfo(ctx, 'rest'),
    });
    if (result.ok) ctx.set('Cache-Control', 'public, max-age=3600');
    respond(ctx, result);
  });
  const on = (tool: string, post: boolean, optionalBody = false) => handler(orchestrator, { tool, post, optionalBody });
  router.post('/checkout_sessions', on('create_checkout_session', true));
  router.all('/checkout_sessions', notAllowed('POST'));
  router.get('/checkout_sessions/:id', on('get_checkout_session', false));
  router.post('/checkout_sessions/:id', on('update_checkout_session', true));
  router.all('/checkout_sessions/:id', notAllowed('GET, POST'));
  router.post('/checkout_sessions/:id/complete', on('complete_checkout_session', true));
  router.all('/checkout_sessions/:id/complete', notAllowed('POST'));
  router.post('/checkout_sessions/:id/cancel', on('cancel_checkout_session', true, true));
  router.all('/checkout_sessions/:id/cancel', notAllowed('POST'));
  router.post('/agentic_commerce/delegate_payment', on('delegate_payment', true));
  router.all('/agentic_commerce/delegate_payment', notAllowed('POST'));
  return router;
}
