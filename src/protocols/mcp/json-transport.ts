/**
 * The transport behind `/mcp`: one MCP `Server` for every POST. Streamable HTTP without sessions answers each POST
 * with JSON, so a POST is one exchange: its request goes to the server and the server's response comes back as the
 * POST's answer. The SDK's stateless transport serves one POST and is then thrown away, with a new `Server` beside it,
 * and each POST built a web `Request` and `Response` for it (docs/performance.md, "The same call over REST, MCP and
 * A2A"). Here one transport carries every POST's exchange: each request gets an id of its own on the way in (two
 * clients may both send id 1), its response is matched by that id and given the client's id back, and the server's
 * handlers find the POST's caller by it (`contextOf`). The HTTP rules the SDK's transport applies (Accept,
 * Content-Type, protocol version, message shape) are applied by `/mcp` (http.ts) before a message gets here.
 *
 * Only requests are handed over. A client's notification is answered 202 by `/mcp` and reaches no one: on a server
 * shared by every caller, a `notifications/cancelled` naming a request id would otherwise cancel whichever caller's
 * request has that id here (the SDK's server then never answers it). Without sessions there is nothing a client's
 * notification could act on anyway: with the SDK's transport it reached a server made for that one POST.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';

interface Exchange<C> {
  clientId: RequestId;
  context: C;
  answer: (message: JSONRPCMessage) => void;
}

export class ExchangeTransport<C> implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  /**
   * Exchanges whose answer is not sent yet: one per request in flight, removed on its answer or when its client leaves.
   */
  private readonly open = new Map<number, Exchange<C>>();
  private nextId = 0;

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.open.clear();
    this.onclose?.();
  }

  /**
   * Hands one request to the server as the caller `context` and resolves with its response under the client's id.
   * `abandon` (the client left) forgets the exchange: the handler still finishes, and its answer is dropped.
   */
  exchange(
    request: JSONRPCMessage & { id: RequestId },
    context: C,
  ): { answer: Promise<JSONRPCMessage>; abandon: () => void } {
    const id = ++this.nextId;
    const answer = new Promise<JSONRPCMessage>((resolve) => {
      this.open.set(id, { clientId: request.id, context, answer: resolve });
    });
    this.onmessage?.({ ...request, id });
    return { answer, abandon: () => this.open.delete(id) };
  }

  /** The caller of the exchange a handler is serving (by the request id the server was given). */
  contextOf(requestId: RequestId): C {
    const exchange = typeof requestId === 'number' ? this.open.get(requestId) : undefined;
    if (!exchange) throw new Error('No open exchange for this request.');
    return exchange.context;
  }

  /**
   * The server's outgoing messages: a response ends its exchange. Anything else (a notification or a request of the
   * server's own) has no stream to go on, since a POST is answered with JSON, and is dropped, as the SDK's transport
   * does in JSON mode; this server sends none.
   */
  async send(message: JSONRPCMessage): Promise<void> {
    if (!('id' in message) || 'method' in message || typeof message.id !== 'number') return;
    const exchange = this.open.get(message.id);
    if (!exchange) return; // the client left
    this.open.delete(message.id);
    exchange.answer({ ...message, id: exchange.clientId });
  }
}
