/**
 * A TCP proxy in front of PostgreSQL that a test can cut and restore, to lose the database mid-request without touching
 * the server.
 */
import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  /** `url` with its host and port replaced by the proxy's. */
  url: string;
  /** Drops every open connection and refuses new ones (each is closed as soon as it opens). */
  cut(): void;
  /** Lets connections through again. */
  restore(): void;
  /** Sends new connections to another server (a PostgreSQL restarted on a new port). */
  retarget(target: string): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: string): Promise<TcpProxy> {
  let upstream = new URL(target);
  const sockets = new Set<Socket>();
  let down = false;
  const server = createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const server = connect(Number(upstream.port || 5432), upstream.hostname);
    for (const s of [client, server]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.on('close', () => server.destroy());
    server.on('close', () => client.destroy());
    client.pipe(server).pipe(client);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    cut() {
      down = true;
      for (const s of sockets) s.destroy();
    },
    restore() {
      down = false;
    },
    retarget(target) {
      upstream = new URL(target);
    },
    close: () =>
      new Promise<void>((ok) => {
        for (const s of sockets) s.destroy();
        server.close(() => ok());
      }),
  };
}
