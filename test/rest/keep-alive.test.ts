/**
 * Kept-alive connections: the server keeps an idle connection longer than a client reuses it. With Node's default
 * (5 s) a client whose event loop stalled past it sent its next request on a connection the server's idle timer then
 * closed before reading it (ECONNRESET): the server's timer and the client's reuse run in the same turn of the loop.
 * Clients (undici, Node's fetch) reuse an idle connection for the server's Keep-Alive hint less a margin, so the hint
 * must be well above any stall of a loaded machine.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, get, type IncomingMessage } from 'node:http';
import { startHarness, type Harness } from '../support/harness.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  await h?.close();
});

/** GET `path` through `agent`: the response (body read) and whether it came over a connection used before. */
function getThrough(agent: Agent, path: string): Promise<{ res: IncomingMessage; reused: boolean }> {
  return new Promise((ok, fail) => {
    const req = get(new URL(path, h.url), { agent }, (res) => {
      res.resume();
      res.on('end', () => ok({ res, reused: req.reusedSocket }));
    });
    req.on('error', fail);
  });
}

test('a connection is kept alive for the next request, and the server keeps an idle one at least 60 s', async () => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const first = await getThrough(agent, '/healthz');
    assert.equal(first.res.headers.connection, 'keep-alive');
    const header = String(first.res.headers['keep-alive']);
    const hint = Number(/timeout=(\d+)/.exec(header)?.[1]);
    assert.ok(hint >= 60, `the server's Keep-Alive hint is ${header}`);
    const second = await getThrough(agent, '/healthz');
    assert.equal(second.reused, true, 'the second request went over the first one’s connection');
  } finally {
    agent.destroy();
  }
});
