/**
 * MCP's stdio transport for `tessera mcp`: newline-delimited JSON-RPC on stdin and stdout. Unlike the SDK's, a line
 * that is not JSON is answered -32700 and a batch or a non-message -32600 (JSON-RPC 2.0 §5), and a client that closes
 * its end of stdout early (EPIPE) stops the reading instead of crashing the process: the requests already running
 * still finish (their answers are dropped) and `ongone` tells the owner to shut down.
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { readJsonRpcMessage } from './jsonrpc-message.ts';

/** The longest line read (as the SDK's 10 MiB buffer); a longer one closes the transport. */
const MAX_LINE_BYTES = 10 * 1024 * 1024;

export class StdioLineTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  /** Called once when the client has gone: stdout failed (EPIPE) or stdin failed. */
  ongone?: () => void;
  private buffer: Buffer = Buffer.alloc(0);
  private closed = false;
  private gone = false;
  private readonly input: Readable;
  private readonly output: Writable;

  constructor(input: Readable = process.stdin, output: Writable = process.stdout) {
    this.input = input;
    this.output = output;
  }

  private readonly onData = (chunk: Buffer): void => {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    for (let end = this.buffer.indexOf(10); end !== -1; end = this.buffer.indexOf(10)) {
      const line = this.buffer.toString('utf8', 0, end).replace(/\r$/, '');
      this.buffer = this.buffer.subarray(end + 1);
      if (line.trim()) this.receive(line);
    }
    if (this.buffer.length > MAX_LINE_BYTES) {
      this.onerror?.(new Error(`A message longer than ${MAX_LINE_BYTES} bytes: closing.`));
      void this.close();
    }
  };

  /**
   * The client went away (EPIPE on stdout, or stdin failing): stop reading and drop every later answer, but do not
   * close (closing aborts the running handlers, whose calls the owner waits for), and do not crash.
   */
  private readonly onStreamError = (): void => {
    this.input.off('data', this.onData);
    this.input.pause();
    if (this.gone) return;
    this.gone = true;
    this.ongone?.();
  };

  private receive(line: string): void {
    const read = readJsonRpcMessage(line);
    if ('message' in read) this.onmessage?.(read.message);
    else {
      const { id, code, message } = read.error;
      void this.write({ jsonrpc: '2.0', id, error: { code, message } });
    }
  }

  async start(): Promise<void> {
    this.input.on('data', this.onData).on('error', this.onStreamError);
    this.output.on('error', this.onStreamError);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.pause();
    this.buffer = Buffer.alloc(0);
    this.onclose?.();
  }

  /** Writes one message; resolves once written, or at once when the client has gone (nothing is left to tell). */
  send(message: JSONRPCMessage): Promise<void> {
    return this.write(message);
  }

  private write(message: unknown): Promise<void> {
    if (this.gone || this.output.destroyed || !this.output.writable) return Promise.resolve();
    return new Promise((resolve) => {
      this.output.write(`${JSON.stringify(message)}\n`, () => resolve());
    });
  }
}
