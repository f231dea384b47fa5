/**
 * The request body reader (src/http/read-body.ts) on a real socket: a body whose connection is gone before its route
 * reads it must fail at once. A reader that only listened for events waited for a `close` already past, so the call
 * never settled and its handler was held forever, one per such request. (Found while looking into a hang of
 * test/security/bad-inputs.test.ts, whose cut-short request can close before its route reads it on a busy machine;
 * that this caused the hang was not established.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { readRaw } from '../../src/http/read-body.ts';

/**
 * Starts a server that reads each request's body at once or only once its connection has closed (`when`), sends
 * `pieces` over one connection (destroying it after the last when `cut`), and returns what reading the body gave.
 */
async function readAfter(
  when: 'closed' | 'at once',
  pieces: string[],
  cut: boolean,
): Promise<{ ok: true; body: string } | { ok: false; error: unknown }> {
  let read!: (r: { ok: true; body: string } | { ok: false; error: unknown }) => void;
  const result = new Promise<{ ok: true; body: string } | { ok: false; error: unknown }>((r) => (read = r));
  const server = createServer((req: IncomingMessage, res) => {
    const go = () =>
      readRaw(req).then(
        (b) => {
          read({ ok: true, body: b.toString('utf8') });
          res.end();
        },
        (error: unknown) => read({ ok: false, error }),
      );
    // 'closed': the connection is gone before the body is read, as when the client leaves while the request waits.
    if (when === 'closed') req.once('close', () => void go());
    else void go();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    socket.on('error', () => undefined);
    await once(socket, 'connect');
    for (const piece of pieces) await new Promise<void>((ok) => socket.write(piece, () => ok()));
    if (cut) socket.destroy();
    return await result;
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

const head = (length: number) =>
  `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

test(
  'a body cut short whose connection closed before it was read fails at once instead of waiting forever',
  { timeout: 60_000 },
  async () => {
    const out = await readAfter('closed', [head(20), '{"a":'], true);
    assert.equal(out.ok, false);
  },
);

test(
  'a whole body whose connection closed before it was read fails at once too (the client is gone)',
  { timeout: 60_000 },
  async () => {
    const out = await readAfter('closed', [head(7) + '{"a":1}'], true);
    assert.equal(out.ok, false);
  },
);

test('a body of declared length sent in pieces is still read whole', { timeout: 60_000 }, async () => {
  const body = JSON.stringify({ title: 'Pieces', n: 12345 });
  const out = await readAfter(
    'at once',
    [head(Buffer.byteLength(body)), body.slice(0, 5), body.slice(5, 12), body.slice(12)],
    false,
  );
  assert.deepEqual(out, { ok: true, body });
});
