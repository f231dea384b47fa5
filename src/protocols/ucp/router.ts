/**
 * UCP's REST binding: the business profile at `/.well-known/ucp`, `/ucp/v1/checkout-sessions…`, `/ucp/v1/orders/{id}`
 * and `/ucp/v1/catalog/{search,lookup}` translated onto the UCP tools via orchestrator.invoke. It only translates: the
 * UCP-Agent and Idempotency-Key headers become the MCP binding's `meta`, the path id `id`, the body `checkout` (or
 * `catalog`); errors become UCP's `{ code, content }`, but `capabilities_incompatible`, which UCP answers as a 200
 * envelope with `ucp.status: "error"`.
 */
import Router from '@koa/router';
import type { JWK } from 'jose';
import type { Context } from 'koa';
import { ToolError, type ErrorBody } from '../../kernel/errors.ts';
import type { Orchestrator } from '../../orchestrator/invoke.ts';
import { bearerOf, requestInfo } from '../../http/http.ts';
import { parseJsonObject, readRaw } from '../../http/read-body.ts';
import { UCP_VERSION } from '../../domain/ucp/protocol.ts';
import { toUcpError, ucpErrorEnvelope } from './errors.ts';
import { businessProfile, UCP_REST_BASE } from './profile.ts';

export interface UcpRouterDeps {
  orchestrator: Orchestrator;
  publicUrl: () => string;
  /** The public keys UCP order webhooks are signed with (the profile's `signing_keys`). */
  signingKeys?: () => Promise<JWK[]>;
}

/** The UCP-Agent header's `profile` member (an RFC 8941 dictionary; only that member is read). */
function profileOf(header: string): string {
  const m = /(?:^|,)\s*profile="([^"\\]{1,2000})"/.exec(header);
  if (!m) throw new ToolError('invalid_profile_url');
  return m[1]!;
}

function sendUcpError(ctx: Context, status: number, error: ErrorBody): void {
  ctx.status = status;
  if (error.retryAfter !== undefined) ctx.set('Retry-After', String(error.retryAfter));
  if (status === 401) ctx.set('WWW-Authenticate', 'Bearer realm="ucp"');
  ctx.body = toUcpError(error);
}

/** Where a request's body goes in the tool's input: UCP's MCP binding names it after the capability. */
type BodyKey = 'checkout' | 'catalog' | undefined;

async function inputOf(ctx: Context, body: BodyKey): Promise<Record<string, unknown>> {
  const meta: Record<string, unknown> = { 'ucp-agent': { profile: profileOf(ctx.get('ucp-agent')) } };
  const key = ctx.get('idempotency-key');
  if (key) meta['idempotency-key'] = key;
  const input: Record<string, unknown> = { meta };
  const id = (ctx.params as Record<string, string | undefined>).id;
  if (id !== undefined) input.id = id;
  if (body) input[body] = parseJsonObject(await readRaw(ctx.req), ctx.get('content-type') || undefined);
  return input;
}

function handler(orchestrator: Orchestrator, tool: string, body: BodyKey) {
  return async (ctx: Context) => {
    let input: Record<string, unknown>;
    try {
      input = await inputOf(ctx, body);
    } catch (err) {
      const e = err instanceof ToolError ? err : new ToolError('invalid_input');
      return sendUcpError(ctx, e.status, e.toBody());
    }
    const result = await orchestrator.invoke({
      tool,
      input,
      credential: bearerOf(ctx),
      idempotencyKey: ctx.get('idempotency-key') || undefined,
      request: requestInfo(ctx, 'rest'),
    });
    if (result.replayed) ctx.set('Idempotent-Replayed', 'true');
    const envelope = result.ok ? undefined : ucpErrorEnvelope(result.error, UCP_VERSION);
    if (envelope) return void (ctx.body = envelope);
    if (!result.ok) return sendUcpError(ctx, result.status, result.error);
    ctx.status = result.status;
    ctx.body = result.output;
  };
}

export function buildUcpRouter({ orchestrator, publicUrl, signingKeys }: UcpRouterDeps): Router {
  const router = new Router();
  router.get('/.well-known/ucp', async (ctx) => {
    const keys = (await signingKeys?.()) ?? [];
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = businessProfile(orchestrator, publicUrl(), keys);
  });
  const base = `${UCP_REST_BASE}/checkout-sessions`;
  router.post(base, handler(orchestrator, 'create_checkout', 'checkout'));
  router.get(`${base}/:id`, handler(orchestrator, 'get_checkout', undefined));
  router.put(`${base}/:id`, handler(orchestrator, 'update_checkout', 'checkout'));
  router.post(`${base}/:id/complete`, handler(orchestrator, 'complete_checkout', 'checkout'));
  router.post(`${base}/:id/cancel`, handler(orchestrator, 'cancel_checkout', undefined));
  router.get(`${UCP_REST_BASE}/orders/:id`, handler(orchestrator, 'get_ucp_order', undefined));
  router.post(`${UCP_REST_BASE}/catalog/search`, handler(orchestrator, 'search_catalog', 'catalog'));
  router.post(`${UCP_REST_BASE}/catalog/lookup`, handler(orchestrator, 'lookup_catalog', 'catalog'));
  return router;
}
