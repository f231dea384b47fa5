/**
 * MCP over Streamable HTTP at `/mcp`: stateless (no sessions), JSON responses, Host/Origin allow-lists; one server for
 * every POST.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import { SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Orchestrator } from '../../orchestrator/invoke.ts';
import type { Services } from '../../domain/context.ts';
import { bearerOf, RATE_GATE_STATE, requestInfo, sendError } from '../../http/http.ts';
import type { RequestGate } from '../../http/rate-limit.ts';
import type { RateGate } from '../../domain/context.ts';
import { AGENT_SCOPE } from '../oauth/provider.ts';
import { resourceMetadataUrl } from '../oauth/router.ts';
import { readRaw } from '../../http/read-body.ts';
import { PRINCIPAL_KIND_STATE } from '../../http/request-log.ts';
import { hostRefusal } from '../../http/host-allow-list.ts';
import { ToolError } from '../../kernel/errors.ts';
import { ExchangeTransport } from './json-transport.ts';
import { readJsonRpcMessage } from './jsonrpc-message.ts';
import type { McpCaller } from './server.ts';
import { UrlElicitationClients } from './limit-raise-elicitation.ts';

export interface McpRouterDeps {
  orchestrator: Orchestrator;
  services: Services;
}

function rpcError(ctx: Context, status: number, message: string, code = -32000, id: RequestId | null = null): void {
  ctx.status = status;
  ctx.body = { jsonrpc: '2.0', error: { code, message }, id };
}

/**
 * The JSON-RPC message of the body, read here so that a batch (a JSON array) is refused with -32600: MCP since
 * 2025-06-18 has no batching, and one request per POST keeps one orchestrator call per HTTP request. Not JSON is
 * -32700; valid JSON that is not a JSON-RPC message is -32600, with the id it named (jsonrpc-message.ts).
 */
async function readMessage(ctx: Context): Promise<JSONRPCMessage | undefined> {
  let raw: Buffer;
  try {
    raw = await readRaw(ctx.req);
  } catch (err) {
    const e = err instanceof ToolError ? err : new ToolError('invalid_input');
    rpcError(ctx, e.status, e.message, -32600);
    return undefined;
  }
  const read = readJsonRpcMessage(raw.toString('utf8'));
  if ('message' in read) return read.message;
  rpcError(ctx, 400, read.error.message, read.error.code, read.error.id);
  return undefined;
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
  if (credential && principal && principal.kind !== 'anonymous') {
    // Verified: a request that runs no tool (initialize, tools/list) is charged to this principal, not the address.
    const gate = ctx.state[RATE_GATE_STATE] as RequestGate | undefined;
    if (gate) gate.verified = principal;
    ctx.state[PRINCIPAL_KIND_STATE] = principal.kind; // for the request log
    return deps.orchestrator.authenticatedAs(credential, principal);
  }
  // A failed credential is charged to the client address, as the orchestrator does, so guessing stays limited.
  if (credential) await (ctx.state[RATE_GATE_STATE] as RateGate | undefined)?.charge(undefined, false);
  const error = credential
    ? ', error="invalid_token", error_description="The bearer credential is unknown, expired or revoked."'
    : '';
  // `scope` (RFC 6750 §3, MCP authorization's scope selection): the scope a client should ask for.
  const metadata = resourceMetadataUrl(deps.services.publicUrl());
  ctx.set('WWW-Authenticate', `Bearer resource_metadata="${metadata}", scope="${AGENT_SCOPE}"${error}`);
  rpcError(
    ctx,
    401,
    credential
      ? 'Unauthorized: the bearer credential is unknown, expired or revoked.'
      : 'Unauthorized: send Authorization: Bearer <token> (an OAuth access token, an API key or an agent token).',
  );
  return undefined;
}

/** The status a request whose client left before its answer is counted with (as nginx's 499). */
const CLIENT_CLOSED_REQUEST = 499;

/**
 * The Streamable HTTP rules for a POST's headers, as the SDK's transport applies them (same statuses, codes and
 * messages): Accept must list both JSON and SSE (406) and the body must be JSON (415). Returns the refusal, or
 * undefined.
 */
function transportRefusal(ctx: Context): [status: number, message: string] | undefined {
  const accept = ctx.get('accept');
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    return [406, 'Not Acceptable: Client must accept both application/json and text/event-stream'];
  }
  if (!isJsonContentType(ctx.get('content-type') || null))
    return [415, 'Unsupported Media Type: Content-Type must be application/json'];
  return undefined;
}

/** A request other than `initialize` that names a protocol version must name a supported one (400, as the SDK's). */
function protocolVersionRefusal(ctx: Context): string | undefined {
  const version = ctx.get('mcp-protocol-version');
  if (!version || SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  return `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`;
}

/** The MCP server's modules, imported once (the first POST to `/mcp`, or `tessera serve` after it is ready). */
export async function loadMcpServer() {
  const [{ mcpServer }, { AjvJsonSchemaValidator }] = await Promise.all([
    import('./server.ts'),
    import('@modelcontextprotocol/sdk/validation/ajv'),
  ]);
  return { mcpServer, AjvJsonSchemaValidator };
}

/** Routes for `/mcp`: POST carries JSON-RPC; GET and DELETE answer 405 (no sessions, no server-initiated stream). */
export function buildMcpRouter(deps: McpRouterDeps): Router {
  const { services } = deps;
  const router = new Router();
  // One server and one transport for every POST (json-transport.ts): a request's handlers find its caller by its id.
  // The server (the SDK's server side, ajv and zod-to-json-schema: some hundred modules) is loaded on the first POST,
  // not at start; `tessera serve` loads it right after it is ready, in the background (docs/performance.md).
  const transport = new ExchangeTransport<McpCaller>();
  let connected: Promise<void> | undefined;
  const connect = () =>
    (connected ??= loadMcpServer().then(({ mcpServer, AjvJsonSchemaValidator }) =>
      mcpServer((extra) => transport.contextOf(extra.requestId), 'http', new AjvJsonSchemaValidator()).connect(
        transport,
      ),
    ));
  const elicitation = new UrlElicitationClients();
  router.post('/mcp', async (ctx) => {
    // DNS-rebinding protection: an unknown Host, or a browser Origin other than the public URL's, is refused with 403.
    const refused = hostRefusal(ctx, { publicUrl: services.publicUrl, listenHost: services.config.host });
    if (refused) return rpcError(ctx, 403, refused);
    const authenticated = await requireCredential(ctx, deps);
    if (!authenticated) return;
    const unfit = transportRefusal(ctx);
    if (unfit) return rpcError(ctx, unfit[0], unfit[1]);
    const message = await readMessage(ctx);
    if (!message) return;
    const isRequest = 'method' in message && 'id' in message;
    if (!(isRequest && message.method === 'initialize')) {
      const version = protocolVersionRefusal(ctx);
      if (version) return rpcError(ctx, 400, version, -32000, 'id' in message ? message.id : null);
    }
    await connect();
    if (!isRequest) {
      // A notification (or a response): accepted, and handed to no one (json-transport.ts says why).
      ctx.status = 202;
      ctx.body = ''; // no body and no type (Koa would otherwise write its status text)
      ctx.remove('Content-Type');
      return;
    }
    const credential = bearerOf(ctx);
    if (message.method === 'initialize') elicitation.remember(credential, message.params);
    const caller: McpCaller = {
      orchestrator: authenticated,
      credential,
      requestInfo: requestInfo(ctx, 'mcp'),
      urlElicitation: elicitation.declares(credential),
    };
    const { answer, abandon } = transport.exchange(message, caller);
    // A client gone before its answer: the request ends now and its exchange is forgotten. A tool call already running
    // still finishes and commits, as when a REST answer is lost.
    const gone = new Promise<undefined>((resolve) => {
      ctx.res.on('close', () => {
        if (ctx.res.writableFinished) return;
        abandon();
        resolve(undefined);
      });
    });
    const response = await Promise.race([answer, gone]);
    if (!response) {
      ctx.status = CLIENT_CLOSED_REQUEST; // for the metrics and logs only: nobody is listening
      return;
    }
    // Past the caller's budget (or refused for load): HTTP 429 with Retry-After, as on REST, not 200 with an error.
    if (caller.rateLimited) return sendError(ctx, 429, caller.rateLimited);
    ctx.type = 'application/json';
    ctx.body = JSON.stringify(response);
  });
  router.all('/mcp', (ctx) => {
    ctx.set('Allow', 'POST');
    rpcError(ctx, 405, 'Method not allowed: this MCP endpoint is stateless; send JSON-RPC with POST.');
  });
  return router;
}
