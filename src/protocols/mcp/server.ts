/**
 * The MCP projection of the tool registry: one low-level MCP `Server` whose tools are exactly the orchestrator's tools.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ACP_JSONRPC_ERROR_CODE, toAcpError } from '../acp/errors.ts';
import { toUcpError, ucpJsonRpcCode } from '../ucp/errors.ts';
import type { CallToolRequest, CallToolResult, RequestId, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { RequestInfo } from '../../domain/context.ts';
import { ToolError, type ErrorBody } from '../../kernel/errors.ts';
import type { InvokeResult, Orchestrator } from '../../orchestrator/invoke.ts';
import { listedOutputSchema } from '../../orchestrator/json-schema.ts';
import { protocolInputSchema, type SurfaceMechanisms } from '../../orchestrator/surface-keys.ts';
import { BUY_TICKETS, buyTicketsPrompt, INSTRUCTIONS } from './guide.ts';
import { limitRaiseAnswer } from './limit-raise-elicitation.ts';
import type { AnyTool } from '../../orchestrator/tool.ts';

/**
 * The `_meta` key a `tools/call` request carries its idempotency key under (the MCP form of the Idempotency-Key
 * header).
 */
export const IDEMPOTENCY_META_KEY = 'tessera/idempotencyKey';
/** The `_meta` key set to `true` on a result that replays a stored outcome (the MCP form of Idempotent-Replayed). */
export const REPLAYED_META_KEY = 'tessera/idempotentReplayed';

/**
 * The MCP tool listing entry of one tool: the input schema OpenAPI and A2A use, the output schema outlined when long.
 */
export function mcpTool(tool: AnyTool): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: protocolInputSchema(tool) as Tool['inputSchema'],
    outputSchema: listedOutputSchema(tool) as Tool['outputSchema'],
    annotations: { title: tool.title, ...tool.annotations },
  };
}

const text = (t: string) => ({ type: 'text' as const, text: t });

/** An error result: the code and message for the model, then the full JSON error body. No structuredContent. */
export function errorResult(error: ErrorBody): CallToolResult {
  return { isError: true, content: [text(`${error.code}: ${error.message}`), text(JSON.stringify(error))] };
}

function toCallResult(result: InvokeResult): CallToolResult {
  const meta = result.replayed ? { _meta: { [REPLAYED_META_KEY]: true } } : {};
  if (!result.ok) return { ...errorResult(result.error), ...meta };
  return { structuredContent: result.output, content: [text(JSON.stringify(result.output))], ...meta };
}

/** Each tool's listing entry is the same for every server of an orchestrator: built once, not per request. */
const listings = new WeakMap<AnyTool, Tool>();
function listingOf(tool: AnyTool): Tool {
  let entry = listings.get(tool);
  if (!entry) {
    entry = mcpTool(tool);
    listings.set(tool, entry);
  }
  return entry;
}

/** Which MCP transport a server is for: it decides how a refusal tells the caller to present a credential. */
export type McpTransportKind = 'http' | 'stdio';

function mechanismsOf(transport: McpTransportKind): SurfaceMechanisms {
  return {
    idempotencyKey: `an idempotencyKey argument (or params._meta["${IDEMPOTENCY_META_KEY}"])`,
    credential:
      transport === 'stdio'
        ? 'a token in TESSERA_TOKEN (or --token) when starting tessera mcp'
        : 'an Authorization: Bearer header',
    keyOptional: true,
    keyArgument: true,
  };
}

/**
 * `tools/call` is registered with a loose schema so that the SDK's own tools/call check (which answers JSON-RPC
 * -32602 Invalid params) sees a request without a name, instead of the method-level parse (-32603).
 */
const LooseCallToolRequest = z.object({ method: z.literal('tools/call'), params: z.looseObject({}).optional() });

/**
 * Who a call is made for: the orchestrator (bound to the caller when already authenticated), the credential, the
 * request.
 */
export interface McpCaller {
  orchestrator: Orchestrator;
  credential: string | undefined;
  requestInfo: RequestInfo;
  /**
   * Set when the call was refused `rate_limited` (the caller's budget spent, or load): over HTTP, `/mcp` answers it
   * as HTTP 429 with `Retry-After` instead of a 200 carrying an error result (http.ts).
   */
  rateLimited?: ErrorBody;
  /**
   * Whether the client declared `capabilities.elicitation.url` (limit-raise-elicitation.ts); unset: the server's own
   * client's capabilities (stdio and in-memory, one client per server).
   */
  urlElicitation?: boolean;
}

/**
 * A fresh MCP server that calls tools as the holder of `credential` (a bearer token, or none): stdio, and the tests'
 * in-memory servers. `/mcp` serves every POST with one server of `mcpServer` (http.ts).
 */
export function createMcpServer(
  orchestrator: Orchestrator,
  credential: string | undefined,
  requestInfo: RequestInfo,
  transport: McpTransportKind = 'http',
  validator?: jsonSchemaValidator,
): Server {
  const caller: McpCaller = { orchestrator, credential, requestInfo };
  return mcpServer(() => caller, transport, validator);
}

/**
 * An MCP server whose requests are each made for the caller `callerOf(extra)` finds. `tools/list` answers the tools
 * that caller's credential may call (the public ones without one), decided by the same `auth` declarations the
 * orchestrator enforces; every call goes through `orchestrator.invoke`, which authenticates, authorizes and validates
 * exactly as for REST. An unknown tool is JSON-RPC -32602, as the MCP specification says. `validator`: the JSON Schema
 * validator the SDK keeps for elicitation (never used here); without one, the SDK builds an Ajv instance per server.
 */
export function mcpServer(
  callerOf: (extra: { requestId: RequestId }) => McpCaller,
  transport: McpTransportKind,
  validator?: jsonSchemaValidator,
): Server {
  const server = new Server(
    { name: 'tessera', version: '1.0.0' },
    {
      capabilities: { tools: {}, prompts: {} },
      instructions: INSTRUCTIONS,
      ...(validator && { jsonSchemaValidator: validator }),
    },
  );
  const mechanisms = mechanismsOf(transport);
  const toolsOf = ({ orchestrator, credential }: McpCaller) => orchestrator.toolsFor(credential, 'mcp');
  server.setRequestHandler(ListToolsRequestSchema, async (_req, extra) => ({
    tools: (await toolsOf(callerOf(extra))).tools.map(listingOf),
  }));
  // The buying prompt is offered to callers that may quote (like the tools, what is listed can be used).
  const mayBuy = async (caller: McpCaller) => (await toolsOf(caller)).tools.some((t) => t.name === 'quote');
  server.setRequestHandler(ListPromptsRequestSchema, async (_req, extra) => ({
    prompts: (await mayBuy(callerOf(extra))) ? [BUY_TICKETS] : [],
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (req, extra) => {
    if (req.params.name !== BUY_TICKETS.name || !(await mayBuy(callerOf(extra)))) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown prompt: ${req.params.name}. prompts/list names the prompts you may use.`,
      );
    }
    try {
      return buyTicketsPrompt(req.params.arguments);
    } catch (err) {
      if (err instanceof ToolError) throw new McpError(ErrorCode.InvalidParams, `${err.code}: ${err.message}`);
      throw err;
    }
  });
  server.setRequestHandler(LooseCallToolRequest, async (raw, extra): Promise<CallToolResult> => {
    const caller = callerOf(extra);
    const { orchestrator, credential, requestInfo } = caller;
    // The SDK's Server has checked the request against CallToolRequestSchema before this handler runs (a failure is its
    // -32602), so it is read as one rather than parsed a second time.
    const req = raw as unknown as CallToolRequest;
    if (!orchestrator.get(req.params.name)) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool: ${req.params.name}. tools/list names the tools you may call.`,
      );
    }
    const key = req.params._meta?.[IDEMPOTENCY_META_KEY];
    if (key !== undefined && typeof key !== 'string') {
      return errorResult(new ToolError('invalid_input', `_meta["${IDEMPOTENCY_META_KEY}"] must be a string.`).toBody());
    }
    const result = await orchestrator.invoke({
      tool: req.params.name,
      input: req.params.arguments ?? {},
      credential,
      idempotencyKey: key,
      request: { ...requestInfo, surface: 'mcp' },
      mechanisms,
    });
    if (!result.ok && result.error.code === 'rate_limited') caller.rateLimited = result.error;
    // ACP's MCP binding: its errors are JSON-RPC errors (-32000) carrying the ACP Error in `data`.
    if (!result.ok && result.tool?.area === 'acp') {
      throw new McpError(
        ACP_JSONRPC_ERROR_CODE,
        result.error.message,
        toAcpError(result.status, result.error, 'arguments', req.params.name),
      );
    }
    // UCP's MCP binding likewise: -32001 for a failed negotiation, -32000 otherwise, `{ code, content }` in `data`.
    if (!result.ok && result.tool?.area === 'ucp') {
      throw new McpError(ucpJsonRpcCode(result.error), result.error.message, toUcpError(result.error));
    }
    const elicits = caller.urlElicitation ?? Boolean(server.getClientCapabilities()?.elicitation?.url);
    if (!result.ok && elicits)
      return (await limitRaiseAnswer(caller, result.error, mechanisms)) ?? toCallResult(result);
    return toCallResult(result);
  });
  return server;
}
