/**
 * The benches' HTTP client: `node:http` with a keep-alive agent, answering like the tests' `restClient` (status,
 * parsed body, headers with `get`). A load generator shares the machine with the server it measures, so it should
 * cost as little as it can: on Node 24 a `fetch` costs about three times the CPU of this per request (0.3 against
 * 0.1 ms, client and a trivial server together), CPU that a 2-core machine would otherwise give the server.
 */
import http from 'node:http';

export interface BenchResponse<T = any> {
  status: number;
  body: T;
  headers: { get(name: string): string | null };
  /** When the request was written to the socket (`performance.now()`; the 'finish' of the request). */
  sentAt?: number;
}

export function benchClient(baseUrl: string, token: string, sockets = 1024) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  const base = new URL(baseUrl);
  const post = <T = any>(
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<BenchResponse<T>> => {
    const payload = JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: base.hostname,
          port: base.port,
          path,
          method: 'POST',
          agent,
          headers: {
            accept: 'application/json',
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(payload),
            ...headers,
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('error', reject);
          res.on('end', () => {
            let parsed: unknown = text;
            try {
              parsed = text ? JSON.parse(text) : undefined;
            } catch {
              /* not JSON */
            }
            const h = res.headers;
            resolve({
              sentAt,
              status: res.statusCode ?? 0,
              body: parsed as T,
              headers: {
                get: (name) => {
                  const v = h[name.toLowerCase()];
                  return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
                },
              },
            });
          });
        },
      );
      let sentAt: number | undefined;
      req.once('finish', () => (sentAt = performance.now()));
      req.on('error', reject);
      req.end(payload);
    });
  };
  return { post, close: () => agent.destroy() };
}

/**
 * `fetch` for a client that hands one long-lived AbortSignal to every request, as the MCP SDK's
 * `StreamableHTTPClientTransport` does (its session's controller). Node's fetch (undici) adds an abort listener to that
 * signal per request and removes it only once the request is garbage-collected, so over a long session the signal's
 * listener list grows, and adding to it (which scans the list for a duplicate) costs more with every call: about
 * 80 µs a call after 3,000 calls in one session, measured in a CPU profile of the bench's client. Here each request
 * gets its own signal, aborted with the shared one while the request runs. The forwarding ends when the answer's
 * headers are in, so aborting the session does not cut a body still being read: right for `/mcp`'s JSON answers
 * (read at once), not for a long SSE stream.
 */
export const abortIsolatingFetch: typeof fetch = async (input, init) => {
  const shared = init?.signal;
  if (!shared) return fetch(input, init);
  const own = new AbortController();
  const forward = () => own.abort(shared.reason);
  if (shared.aborted) forward();
  else shared.addEventListener('abort', forward, { once: true });
  try {
    return await fetch(input, { ...init, signal: own.signal });
  } finally {
    shared.removeEventListener('abort', forward);
  }
};
