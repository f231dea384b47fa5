/**
 * The internal transport between server processes (RESERVE_ROUTING, docs/scaling.md): a loopback HTTP listener that
 * takes JSON messages authenticated with an HMAC-SHA256 under a key derived from the server secret the processes
 * share, and the keep-alive client that sends them. It knows nothing of what the messages mean.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Agent, createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The header carrying `<milliseconds since the epoch>.<hex MAC of "<milliseconds>.<body>">`. */
export const MAC_HEADER = 'x-tessera-forward';
/** A message older or newer than this (by the sender's clock against the receiver's) is refused. */
const FRESH_MS = 30_000;
const MAX_BODY = 1 << 20;
const PATH = '/internal/forward';
/** How long a closing listener lets the messages it is answering finish. */
const CLOSE_WAIT_MS = 5_000;

function macOf(key: Buffer, stamp: string, body: string): string {
  return createHmac('sha256', key).update(`${stamp}.${body}`).digest('hex');
}

/** Whether `header` is a fresh, valid MAC of `body` under `key`. */
export function verifyMac(key: Buffer, header: string | undefined, body: string, now = Date.now()): boolean {
  const m = /^(\d{1,16})\.([0-9a-f]{64})$/.exec(header ?? '');
  if (!m || Math.abs(now - Number(m[1])) > FRESH_MS) return false;
  return timingSafeEqual(Buffer.from(m[2]!, 'hex'), Buffer.from(macOf(key, m[1]!, body), 'hex'));
}

/** A listener on loopback: its address (`host:port`) for the others, and its close. */
export interface ForwardListener {
  address: string;
  close(): Promise<void>;
}

/**
 * Listens on `host` (loopback), port 0. Each authenticated message is handed to `handle`, whose value is the JSON
 * answer; a message without a valid MAC is answered 401 with nothing else. `handle` must not throw (a throw is 500
 * with an empty body, for the sender to treat as a lost answer).
 */
export async function listenForForwards(
  host: string,
  key: Buffer,
  handle: (message: unknown) => Promise<unknown>,
): Promise<ForwardListener> {
  const server: Server = createServer((req, res) => {
    void readBody(req).then(async (body) => {
      const answer = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      if (req.method !== 'POST' || req.url !== PATH || body === undefined) return answer(404, {});
      if (!verifyMac(key, req.headers[MAC_HEADER] as string | undefined, body)) return answer(401, {});
      try {
        answer(200, await handle(JSON.parse(body)));
      } catch {
        answer(500, {});
      }
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((ok, fail) => server.once('error', fail).listen(0, host, () => ok()));
  const { port } = server.address() as AddressInfo;
  return {
    address: `${host.includes(':') ? `[${host}]` : host}:${port}`,
    // Stops accepting at once (a sender then runs its calls itself: nothing was sent) and lets the messages being
    // answered finish, up to CLOSE_WAIT_MS, so a clean stop does not turn them into lost answers.
    close: () =>
      new Promise<void>((ok) => {
        const cut = setTimeout(() => server.closeAllConnections(), CLOSE_WAIT_MS);
        server.close(() => {
          clearTimeout(cut);
          ok();
        });
        server.closeIdleConnections();
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => resolve(size <= MAX_BODY ? Buffer.concat(chunks).toString('utf8') : undefined));
    req.on('error', () => resolve(undefined));
  });
}

/** The message never reached the receiver (its connection was refused): nothing can have been done for it. */
export class ForwardNotSent extends Error {}
/** The message may have reached the receiver but no answer came back (reset, timeout, an answer not 200). */
export class ForwardLost extends Error {}

/** Sends messages to other processes' listeners over keep-alive connections. */
export class ForwardClient {
  private readonly key: Buffer;
  private readonly timeoutMs: number;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });

  constructor(key: Buffer, timeoutMs = 30_000) {
    this.key = key;
    this.timeoutMs = timeoutMs;
  }

  /** Sends `message` to `address` (`host:port`); resolves with the answer, or throws ForwardNotSent / ForwardLost. */
  send(address: string, message: unknown): Promise<unknown> {
    const body = JSON.stringify(message);
    const stamp = String(Date.now());
    const url = new URL(`http://${address}${PATH}`);
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method: 'POST',
          agent: this.agent,
          timeout: this.timeoutMs,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            [MAC_HEADER]: `${stamp}.${macOf(this.key, stamp, body)}`,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', () => reject(new ForwardLost('answer lost')));
          res.on('end', () => {
            if (res.statusCode !== 200) return reject(new ForwardLost(`answered ${res.statusCode}`));
            try {
              resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
            } catch {
              reject(new ForwardLost('answer unreadable'));
            }
          });
        },
      );
      req.on('timeout', () => req.destroy(new ForwardLost('no answer in time')));
      req.on('error', (err: NodeJS.ErrnoException) =>
        reject(err.code === 'ECONNREFUSED' ? new ForwardNotSent(err.code) : new ForwardLost(err.code ?? 'lost')),
      );
      req.end(body);
    });
  }

  /** Closes the idle connections. */
  close(): void {
    this.agent.destroy();
  }
}
