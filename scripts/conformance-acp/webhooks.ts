/**
 * The receiving end of the server's ACP order webhooks in the conformance run: a local HTTP receiver, and ACP's
 * Merchant-Signature check.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebhookReceiver } from './context.ts';

/** Starts the receiver on a free loopback port. */
export async function startReceiver(): Promise<WebhookReceiver> {
  const queue: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const waiting: Array<() => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      queue.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ received: true }));
      for (const w of waiting.splice(0)) w();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async next() {
      const deadline = Date.now() + 60_000;
      while (!queue.length) {
        if (Date.now() > deadline) throw new Error('no webhook arrived within 60 s');
        await new Promise<void>((ok) => {
          waiting.push(ok);
          setTimeout(ok, 1000);
        });
      }
      return queue.shift()!;
    },
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

/** ACP's Merchant-Signature check (t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">, 300 s tolerance). */
export function merchantSignatureValid(header: unknown, body: string, secret: string): boolean {
  const m = /^t=(\d+),v1=([a-fA-F0-9]{64})$/.exec(typeof header === 'string' ? header : '');
  if (!m || Math.abs(Date.now() / 1000 - Number(m[1])) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${m[1]}.${body}`).digest();
  const given = Buffer.from(m[2]!, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The signing secret of this run's webhook subscription. */
export const WEBHOOK_SECRET = `conformance-${randomUUID()}`;
