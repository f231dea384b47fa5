/**
 * MCP over stdio (`tessera mcp`): the app's orchestrator served on stdin/stdout as one credential, with no HTTP
 * listener.
 */
import { resolve } from 'node:path';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { createApp } from './app.ts';
import { DEFAULT_DATA_DIR, type Config } from './kernel/config.ts';
import { createLogger } from './log.ts';
import { connectDatabase } from './storage/connect.ts';
import { createMcpServer } from './protocols/mcp/server.ts';
import { StdioLineTransport } from './protocols/mcp/stdio-transport.ts';

export interface McpStdioOptions {
  config: Config;
  /** The bearer credential every call is made with; defaults to `config.token` (TESSERA_TOKEN). */
  token?: string | undefined;
}

/** Counts requests still awaiting their response, so the end of stdin does not cut off a call that is running. */
function trackInFlight(transport: StdioLineTransport): () => Promise<void> {
  let pending = 0;
  let idle = () => {};
  transport.onmessage = (message) => {
    if ('method' in message && 'id' in message) pending++;
  };
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    try {
      await send(message);
    } finally {
      if (!('method' in message) && 'id' in message && --pending === 0) idle();
    }
  };
  return () => (pending === 0 ? Promise.resolve() : new Promise<void>((resolve) => (idle = resolve)));
}

/**
 * Says on stderr which database this process uses before starting it: an MCP host starts `tessera mcp` in a directory
 * of its own, where the default data directory is a second, empty database unless TESSERA_DATA_DIR or DATABASE_URL
 * names the server's (then `tools/list` shows only the public tools, as no key exists there).
 */
function announceDatabase(config: Config, log: Logger): void {
  if (config.databaseUrl) {
    const url = URL.parse(config.databaseUrl);
    const database = url ? `${url.hostname}:${url.port || 5432}${url.pathname}` : 'DATABASE_URL'; // never the password
    log.info({ database }, 'using DATABASE_URL');
    return;
  }
  const dataDir = resolve(config.dataDir);
  if (config.dataDir !== DEFAULT_DATA_DIR) {
    log.info({ dataDir }, 'using the embedded PostgreSQL in TESSERA_DATA_DIR');
    return;
  }
  log.warn(
    { dataDir },
    `TESSERA_DATA_DIR and DATABASE_URL are unset: using the embedded PostgreSQL in ${dataDir}, which is not the ` +
      "server's database unless the server runs from this directory; set TESSERA_DATA_DIR (or DATABASE_URL) to use it",
  );
}

/**
 * Connects the database, builds the app without listening and serves MCP on stdio until stdin
 * closes or SIGINT/SIGTERM arrives, then releases everything. stdout carries JSON-RPC only:
 * the logger writes to stderr and stray console output is sent there too.
 */
export async function runMcpStdio(opts: McpStdioOptions): Promise<void> {
  console.log = console.info = console.debug = console.error;
  const { config } = opts;
  const token = opts.token ?? config.token;
  const log = createLogger(config.logLevel);
  announceDatabase(config, log);
  const connected = await connectDatabase(config, log);
  try {
    const app = await createApp(config, connected.db, { log });
    if (!token)
      log.warn('no credential (TESSERA_TOKEN or --token): tools can be listed, but calls answer unauthenticated');
    const server = createMcpServer(app.orchestrator, token, { surface: 'mcp' }, 'stdio');
    const transport = new StdioLineTransport();
    const drained = trackInFlight(transport);
    let stop = () => {};
    const closed = new Promise<void>((resolve) => (stop = resolve));
    const signals = ['SIGINT', 'SIGTERM'] as const;
    process.stdin.once('end', stop).once('close', stop);
    for (const s of signals) process.once(s, stop);
    transport.onclose = stop;
    transport.ongone = stop; // the client closed its end early (EPIPE): the running calls finish, then everything ends
    await server.connect(transport);
    log.info({ tools: app.orchestrator.tools.length }, 'MCP server on stdio');
    await closed;
    for (const s of signals) process.off(s, stop);
    await drained();
    await server.close();
    await app.close();
  } finally {
    await connected.close();
  }
}
