/** MCP over Streamable HTTP at `/mcp`: stateless (a new server and transport per POST), JSON responses, Host/Origin allow-lists. */
import Router from '@koa/router';
import type { Context } from 'koa';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Orchestrator } from '../../orchestrator/invoke.ts';
import type { Services } from '../../domain/context.ts';
import { bearerOf, RATE_GATE_STATE, requestInfo } from '../../http/http.ts';
import type { RateGate } from '../../domain/context.ts';
import { resourceMetadataUrl } from '../oauth/router.ts';
import { readRaw } from '../../http/read-body.ts';
import { hostRefusal } from '../../http/host-allow-list.ts';
import { ToolError } from '../../kernel/errors.ts';
import { MAX_JSON_DEPTH, nestedTooDeep } from '../../kernel/input-shape.ts';
import { createMcpServer } from './server.ts';

export interface McpRouterDeps {
  orchestrator: Orchestrator;
  services: Services;
}

function rpcError(ctx: Context, status: number, message: string, code = -32000): void {
  ctx.status = status;
  ctx.body = { jsonrpc: '2.0', error: { code, message }, id: null };
}

/**
 * The JSON-RPC body, read here so that a batch (a JSON array) is refused with -32600: MCP since 2025-06-18 has no
 * batching, and one request per POST keeps one orchestrator call per HTTP request. Not JSON is -32700.
 */
async function readMessage(ctx: Context): Promise<{ body: unknown } | undefined> {
  let raw: Buffer;
  try {
    raw = await readRaw(ctx.req);
  } catch (err) {
    const e = err instanceof ToolError ? err : new ToolError('invalid_input');
    rpcError(ctx, e.status, e.message, -32600);
    return undefined;
  }
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    rpcError(ctx, 400, 'Parse error: the request body is not valid JSON.', -32700);
    return undefined;
  }
  if (nestedTooDeep(body)) {
    rpcError(ctx, 400, `Invalid Request: the message is nested more than ${MAX_JSON_DEPTH} levels deep.`, -32600);
    return undefined;
  }
  if (Array.isArray(body)) {
    rpcError(ctx, 400, 'Invalid Request: JSON-RPC batches are not supported; send one message per POST.', -32600);
    return undefined;
  }
  return { body };
}

/**
 * `/mcp` is a protected resource (MCP authorization): a request without a valid bearer (none, unknown, revoked) is
 * answered 401 with `WWW-Authenticate: Bearer resource_metadata="…"`, from which an OAuth client discovers the
 * authorization server (docs/oauth.md). API keys, agent tokens, sessions and OAuth access tokens are valid bearers.
 * The public tools stay reachable without a credential over REST, A2A and stdio.
 */
async function requireCredential(ctx: Context, deps: McpRouterDeps): Promise<Orchestrator | undefined> {
  const credential = bearerOf(ctx);
  // Only a refused credential is a 401; anything else (the database lost) propagates to the error guard (503).
  const principal = credential
    ? await deps.orchestrator.authenticate(credential, 'mcp').catch((err: unknown) => {
        if (err instanceof ToolError && err.status === 401) return undefined;
        throw err;
      })
    : undefined;
  if (credential && principal && principal.kind !== 'anonymous') return deps.orchestrator.authenticatedAs(credential, principal);
  // A failed credential is charged to the client address, as the orchestrator does, so guessing stays limited.
  if (credential) await (ctx.state[RATE_GATE_STATE] as RateGate | undefined)?.charge(undefined, false);
  const error = credential ? ', error="invalid_token", error_description="The bearer credential is unknown, expired or revoked."' : '';
  ctx.set('WWW-Authenticate', `Bearer resource_metadata="${resourceMetadataUrl(deps.services.publicUrl())}"${error}`);
  rpcError(ctx, 401, credential ? 'Unauthorized: the bearer credential is unknown, expired or revoked.' : 'Unauthorized: send Authorization: Bearer <token> (an OAuth access token, an API key or an agent token).');
  return undefined;
}

/** The status a request whose client left before its answer is counted with (as nginx's 499). */
const CLIENT_CLOSED_REQUEST = 499;

/** The request headers the transport reads: Accept and Content-Type checks, the protocol version, the session. */
const TRANSPORT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id'];

/** Routes for `/mcp`: POST carries JSON-RPC; GET and DELETE answer 405 (no sessions, no server-initiated stream). */
export function buildMcpRouter(deps: McpRouterDeps): Router {
  const { services } = deps;
  const router = new Router();
  // One validator for every per-request server: the SDK would otherwise build an Ajv instance per POST.
  const validator = new AjvJsonSchemaValidator();
  router.post('/mcp', async (ctx) => {
    // DNS-rebinding protection: an unknown Host, or a browser Origin other than the public URL's, is refused with 403.
    const refused = hostRefusal(ctx, { publicUrl: services.publicUrl, listenHost: services.config.host });
    if (refused) return rpcError(ctx, 403, refused);
    const authenticated = await requireCredential(ctx, deps);
    if (!authenticated) return;
    const message = await readMessage(ctx);
    if (!message) return;
    const server = createMcpServer(authenticated, bearerOf(ctx), requestInfo(ctx, 'mcp'), 'http', validator);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    // A client gone before its answer: close the server and transport and finish the request now (the transport never
    // answers a closed stream, so waiting would never end). A tool call already running still finishes and commits,
    // as when a REST answer is lost. An answer sent whole leaves nothing running (JSON responses are sent once the call
    // has finished), and closing would only build the SDK's "Connection closed" error.
    const gone = new Promise<undefined>((resolve) => {
      ctx.res.on('close', () => {
        if (ctx.res.writableFinished) return;
        void transport.close();
        void server.close();
        resolve(undefined);
      });
    });
    await server.connect(transport);
    // The SDK's web-standard transport, handed a bodiless Request (the body is already parsed) with the headers it
    // reads; its JSON Response becomes Koa's. Its Node wrapper would convert the whole request and pipe the answer
    // through web streams, about a third of the CPU /mcp spends beyond REST's.
    const headers = new Headers();
    for (const name of TRANSPORT_HEADERS) {
      const value = ctx.req.headers[name];
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const request = new Request(`${services.publicUrl()}/mcp`, { method: 'POST', headers });
    const response = await Promise.race([transport.handleRequest(request, { parsedBody: message.body }), gone]);
    if (!response) {
      ctx.status = CLIENT_CLOSED_REQUEST; // for the metrics and logs only: nobody is listening
      return;
    }
    ctx.status = response.status;
    response.headers.forEach((value, name) => ctx.set(name, value));
    ctx.body = await response.text();
    if (!ctx.body) ctx.remove('Content-Type'); // 202 for a notification: no body, no type
  });
  router.all('/mcp', (ctx) => {
    ctx.set('Allow', 'POST');
    rpcError(ctx, 405, 'Method not allowed: this MCP endpoint is stateless; send JSON-RPC with POST.');
  });
  return router;
}
