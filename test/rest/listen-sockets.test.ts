/**
 * The server can listen through several sockets on its port (LISTEN_SOCKETS; src/http/listen.ts): Node's
 * event loop accepts one new connection per listening socket per turn, so at a flash sale's opening, with one socket,
 * connections waited in the kernel's accept queue while each long turn accepted one. Shown here with real sockets: the
 * connections that arrive while the loop is held are accepted many per turn, every one reaches the one HTTP server, a
 * port already in use is still refused, and the server process listens through 16 sockets unless told otherwise.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, createServer, get, type Server } from 'node:http';
import { listenHttp, type Listening } from '../../src/http/listen.ts';
import { loadConfig } from '../../src/kernel/config.ts';
import { createTestDatabase, dropDatabase } from '../support/database.ts';
import { startServerProcess } from '../support/server-process.ts';

/** Listening TCP sockets on 127.0.0.1:`port`, from the kernel's own table (/proc/net/tcp: state 0A is LISTEN). */
function listeningSockets(port: number): number {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .filter((line) => {
      const f = line.trim().split(/\s+/);
      return f[1] === local && f[3] === '0A';
    }).length;
}

/** GET / over a connection of its own; `status body`. */
function getOnNewConnection(port: number): Promise<string> {
  return new Promise((ok, fail) => {
    get({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => ok(`${res.statusCode} ${body}`));
    }).on('error', fail);
  });
}

async function start(
  sockets: number,
  port = 0,
): Promise<{ server: Server; listening: Listening; stop(): Promise<void> }> {
  const server = createServer((_req, res) => res.end('ok'));
  const listening = await listenHttp(server, { port, host: '127.0.0.1', sockets, backlog: 4096 });
  return {
    server,
    listening,
    async stop() {
      const closed = listening.close();
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
      await closed;
    },
  };
}

/**
 * Opens `count` connections to `port` from another process while this thread is held (spawnSync), so all of them wait
 * in the kernel's accept queue at once; returns how many distinct turns of this event loop accepted them.
 */
async function turnsToAccept(server: Server, port: number, count: number): Promise<number> {
  let turn = 0;
  let ticking = true;
  const tick = () => {
    turn++;
    if (ticking) setImmediate(tick);
  };
  const turns = new Set<number>();
  let accepted = 0;
  const all = new Promise<void>((ok) =>
    server.on('connection', () => {
      turns.add(turn);
      if (++accepted === count) ok();
    }),
  );
  tick();
  const child = spawnSync(
    process.execPath,
    [
      '-e',
      `const net = require('node:net'); let open = 0;
       for (let i = 0; i < ${count}; i++) net.connect(${port}, '127.0.0.1', () => { if (++open === ${count}) process.exit(0); });`,
    ],
    { stdio: 'inherit' },
  );
  assert.equal(child.status, 0, 'every connection was made while the server thread was held');
  await all;
  ticking = false;
  return turns.size;
}

test('with one listening socket a turn accepts one connection; with 16, many per turn, and every one is served', async () => {
  const one = await start(1);
  try {
    assert.equal(listeningSockets(one.listening.port), 1);
    assert.equal(await turnsToAccept(one.server, one.listening.port, 32), 32, 'one connection per turn of the loop');
  } finally {
    await one.stop();
  }
  const many = await start(16);
  try {
    assert.equal(listeningSockets(many.listening.port), 16);
    // The kernel spreads new connections over the sockets by their addresses: 32 over 16 sockets leave a few on one.
    const turns = await turnsToAccept(many.server, many.listening.port, 32);
    assert.ok(turns <= 12, `32 connections accepted in ${turns} turns, not 32`);
    // Whichever socket accepts a connection, the one HTTP server answers it (a new connection for each request).
    const answers = await Promise.all(Array.from({ length: 64 }, () => getOnNewConnection(many.listening.port)));
    assert.deepEqual(new Set(answers), new Set(['200 ok']));
  } finally {
    await many.stop();
  }
  assert.equal(listeningSockets(many.listening.port), 0, 'closed: no socket is left listening');
});

test('a port already in use is refused with EADDRINUSE, whoever holds it, and a closed port can be listened on again', async () => {
  const plain = await start(1);
  try {
    await assert.rejects(start(16, plain.listening.port), { code: 'EADDRINUSE' });
  } finally {
    await plain.stop();
  }
  // Another server with several sockets would let a second one join its port silently (SO_REUSEPORT); it is refused.
  const first = await start(16);
  const port = first.listening.port;
  try {
    await assert.rejects(start(16, port), { code: 'EADDRINUSE' });
    await assert.rejects(start(1, port), { code: 'EADDRINUSE' });
    assert.equal(listeningSockets(port), 16, 'the first server keeps its sockets');
  } finally {
    await first.stop();
  }
  const again = await start(16, port);
  try {
    assert.equal(listeningSockets(port), 16);
  } finally {
    await again.stop();
  }
});

test(
  'closing: the connections every socket accepted close with the server, idle keep-alive ones included',
  { timeout: 60_000 },
  async () => {
    const many = await start(16);
    // No idle timeout: a connection left open would keep its listening socket's close waiting for ever.
    many.server.keepAliveTimeout = 0;
    const agent = new Agent({ keepAlive: true, maxSockets: 32 });
    const closed: Promise<void>[] = [];
    agent.on('free', (socket) => {
      if (!(socket as { counted?: boolean }).counted)
        closed.push(new Promise((ok) => socket.once('close', () => ok())));
      (socket as { counted?: boolean }).counted = true;
    });
    const call = () =>
      new Promise<number>((ok, fail) => {
        get({ host: '127.0.0.1', port: many.listening.port, path: '/', agent }, (res) =>
          res.resume().on('end', () => ok(res.statusCode ?? 0)),
        ).on('error', fail);
      });
    const statuses = await Promise.all(Array.from({ length: 32 }, call));
    assert.deepEqual(new Set(statuses), new Set([200]));
    assert.ok(closed.length > 1, 'the calls went over several connections, left open and idle');
    await many.stop(); // resolves (the test's timeout fails it otherwise)
    await Promise.all(closed);
    assert.equal(listeningSockets(many.listening.port), 0);
    agent.destroy();
  },
);

test('LISTEN_SOCKETS: 16 on Linux by default (1 elsewhere), a whole number from 1 to 64, anything else stops start-up naming it', () => {
  assert.equal(loadConfig({}).listenSockets, process.platform === 'linux' ? 16 : 1);
  assert.equal(loadConfig({ LISTEN_SOCKETS: '1' }).listenSockets, 1);
  for (const bad of ['0', '65', '2.5', 'many'])
    assert.throws(() => loadConfig({ LISTEN_SOCKETS: bad }), /LISTEN_SOCKETS/);
});

let dbUrl: string;
before(async () => {
  dbUrl = await createTestDatabase(process.env.TESSERA_TEST_TEMPLATE_DATABASE);
});
after(async () => {
  if (dbUrl) await dropDatabase(new URL(dbUrl).pathname.slice(1));
});

test('the server process listens through 16 sockets by default, and through one with LISTEN_SOCKETS=1', async () => {
  for (const [env, expected] of [
    [{}, 16],
    [{ LISTEN_SOCKETS: '1' }, 1],
  ] as const) {
    const server = await startServerProcess(
      { DATABASE_URL: dbUrl, SWEEP_INTERVAL_MS: '0', WEBHOOK_DISPATCH_MS: '0', SANDBOX_DISPATCH_MS: '0', ...env },
      180_000,
    );
    try {
      const port = Number(new URL(server.url).port);
      assert.equal(listeningSockets(port), expected);
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    } finally {
      await server.stop();
    }
  }
});
