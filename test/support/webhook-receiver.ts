/** A real local HTTP receiver for webhook tests: records every request and answers with scripted statuses. */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body exactly as it arrived (what the signature covers). */
  body: string;
}

export interface Receiver {
  /** Base URL, e.g. http://127.0.0.1:54321 */
  url: string;
  received: Received[];
  /** Statuses for the next requests to `path`, in order; afterwards every request gets 200. */
  respondWith(path: string, ...statuses: number[]): void;
  /** Resolves with the next request that arrives (or the n-th, counting those already received). */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const scripts = new Map<string, number[]>();
  const waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = scripts.get(req.url ?? '/')?.shift() ?? 200;
      res.end(res.statusCode < 300 ? 'ok' : 'nope');
      for (const w of waiters.splice(0)) w();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    respondWith: (path, ...statuses) => void scripts.set(path, [...(scripts.get(path) ?? []), ...statuses]),
    waitFor(count, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${received.length} of ${count} requests`)),
          timeoutMs,
        );
        const check = () => {
          if (received.length >= count) {
            clearTimeout(timer);
            resolve(received.slice());
          } else waiters.push(check);
        };
        check();
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}

/** A URL on 127.0.0.1 where nothing listens (connection refused). */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((ok) => server.close(() => ok()));
  return `http://127.0.0.1:${port}/hook`;
}
