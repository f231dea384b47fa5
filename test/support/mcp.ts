/**
 * MCP clients for tests: the real SDK Client over an in-memory pair or over Streamable HTTP, and a uniform call result.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer, IDEMPOTENCY_META_KEY } from '../../src/protocols/mcp/server.ts';
import type { Harness } from './harness.ts';
import type { Outcome } from './outcome.ts';

function newClient(): Client {
  return new Client({ name: 'tessera-test', version: '0' });
}

/**
 * A connected Client to `createMcpServer` over InMemoryTransport, calling as `token`. The tool list is
 * fetched once so the SDK validates every structuredContent against the advertised output schema.
 */
export async function mcpInMemory(h: Harness, token?: string): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = createMcpServer(h.app.orchestrator, token, { surface: 'mcp' });
  await server.connect(serverSide);
  const client = newClient();
  client.onclose = () => void server.close();
  await client.connect(clientSide);
  await client.listTools();
  return client;
}

/**
 * A connected Client to the harness server's `/mcp` over Streamable HTTP, with `Authorization: Bearer <token>` when
 * given.
 */
export async function mcpHttp(h: Harness, token?: string, headers: Record<string, string> = {}): Promise<Client> {
  const all = token ? { ...headers, authorization: `Bearer ${token}` } : headers;
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', h.url), { requestInit: { headers: all } });
  const client = newClient();
  await client.connect(transport);
  await client.listTools();
  return client;
}

/** The two MCP surfaces by name, so one behaviour test can run over each. */
export const MCP_SURFACES = { 'mcp in-memory': mcpInMemory, 'mcp http': mcpHttp } as const;

/**
 * Calls a tool and folds the result into `{ ok, output }` or `{ ok: false, code, message, error }`
 * (the error's code and message are read from the JSON error body, the second text block).
 */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
  opts: { idempotencyKey?: string } = {},
): Promise<Outcome> {
  const meta = opts.idempotencyKey ? { _meta: { [IDEMPOTENCY_META_KEY]: opts.idempotencyKey } } : {};
  const result = (await client.callTool({ name, arguments: args, ...meta })) as CallToolResult;
  const replayed = result._meta?.['tessera/idempotentReplayed'] === true;
  if (!result.isError) return { ok: true, output: result.structuredContent, replayed };
  const texts = result.content.flatMap((c) => (c.type === 'text' ? [c.text] : []));
  const error = JSON.parse(texts[1] ?? '{}');
  if (texts[0] !== `${error.code}: ${error.message}`)
    throw new Error(`Unexpected MCP error result: ${JSON.stringify(result)}`);
  return { ok: false, code: error.code, message: error.message, error, replayed };
}
