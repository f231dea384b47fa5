/**
 * Where the HTTP server listens: on one port, through one or several listening sockets.
 *
 * Node's event loop accepts ONE new connection per listening socket per turn of the loop (libuv has not accepted in a
 * loop since libuv/libuv#3696), and a turn under load is long: it reads every request that arrived meanwhile. When a
 * flash sale opens, hundreds of connections arrive at once; with one listening socket the ones the kernel held were
 * accepted a few per 10 ms, so a buyer's first request waited in the kernel's accept queue, where admission control
 * cannot see it, up to several hundred ms (docs/performance.md, "The opening's cause"). With `sockets` listening
 * sockets on the port (SO_REUSEPORT, which spreads new connections over them), a turn accepts up to `sockets`
 * connections. Every connection goes to the one HTTP server, whichever socket accepted it.
 *
 * SO_REUSEPORT lets a second process of the same user join the port silently, so on a fixed port an ordinary socket
 * is bound first: a port already in use fails with EADDRINUSE, as it does with one socket.
 *
 * 16 is the default on Linux (LISTEN_SOCKETS; 1 elsewhere). It was one for a day, while two browser-test failures were
 * suspected of coming from the sockets: one was a race in the page's dialog, fixed; the other has not recurred
 * (docs/performance.md).
 */
import type { Server as HttpServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';

export interface ListenOptions {
  port: number;
  host: string;
  /** Listening sockets on the port (LISTEN_SOCKETS); 1: an ordinary socket. */
  sockets: number;
  backlog: number;
}

export interface Listening {
  port: number;
  /**
   * Stops the extra listening sockets accepting, at once, and resolves once the connections they accepted have ended:
   * close the HTTP server's connections meanwhile (`closeAllConnections`), which include theirs. (Its own listening
   * socket is closed with the server.)
   */
  close(): Promise<void>;
}

function listenOn(
  server: NetServer,
  options: { port: number; host: string; backlog: number; reusePort?: boolean; exclusive?: boolean },
): Promise<void> {
  return new Promise((ok, fail) => {
    const failed = (err: Error) => fail(err);
    server.once('error', failed);
    server.listen(options, () => {
      server.off('error', failed);
      ok();
    });
  });
}

const closeServer = (server: NetServer) => new Promise<void>((ok) => server.close(() => ok()));

/** Listens with `server` on `port` (0: a free one), through `sockets` listening sockets; resolves once all listen. */
export async function listenHttp(
  server: HttpServer,
  { port, host, sockets, backlog }: ListenOptions,
): Promise<Listening> {
  if (sockets <= 1) {
    await listenOn(server, { port, host, backlog });
    return { port: (server.address() as AddressInfo).port, close: async () => undefined };
  }
  if (port !== 0) {
    // An ordinary socket first: a port someone already listens on (another Tessera included) is refused here.
    const probe = createNetServer();
    await listenOn(probe, { port, host, backlog: 1, exclusive: true });
    await closeServer(probe);
  }
  await listenOn(server, { port, host, backlog, reusePort: true });
  const bound = (server.address() as AddressInfo).port;
  const extra: NetServer[] = [];
  try {
    for (let i = 1; i < sockets; i++) {
      // The socket options the HTTP server gives its own connections (half-open allowed, no Nagle delay).
      const listener = createNetServer({ allowHalfOpen: true, noDelay: true }, (socket) =>
        server.emit('connection', socket),
      );
      await listenOn(listener, { port: bound, host, backlog, reusePort: true });
      listener.on('error', (err) => server.emit('error', err)); // an accept failure, as the HTTP server's own would be
      extra.push(listener);
    }
  } catch (err) {
    await Promise.all(extra.map(closeServer));
    await closeServer(server);
    throw err;
  }
  return { port: bound, close: async () => void (await Promise.all(extra.map(closeServer))) };
}
