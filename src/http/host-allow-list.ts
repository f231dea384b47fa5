/**
 * DNS-rebinding protection shared by `/mcp` and `/dev/mail`: only this server's own Host values, and no foreign browser
 * Origin.
 */
import type { Context } from 'koa';

export interface HostAllowListDeps {
  /** The public URL (its host is always allowed, its origin is the only browser Origin allowed). */
  publicUrl: () => string;
  /** The host the server listens on. */
  listenHost: string;
}

/**
 * The Host values a request may carry: the public URL's host, and the port the request actually reached under the
 * listen host, `localhost` and `127.0.0.1`. Computed per request because the port is known only after listen (port 0 in
 * tests).
 */
function allowedHosts(deps: HostAllowListDeps, localPort: number | undefined): Set<string> {
  const hosts = new Set([new URL(deps.publicUrl()).host.toLowerCase()]);
  if (localPort) {
    const listen = deps.listenHost.includes(':') ? `[${deps.listenHost}]` : deps.listenHost;
    for (const name of [listen, 'localhost', '127.0.0.1', '[::1]']) hosts.add(`${name.toLowerCase()}:${localPort}`);
  }
  return hosts;
}

/** Why the request is refused (an unknown Host, or a browser Origin other than the public URL's), or undefined. */
export function hostRefusal(ctx: Context, deps: HostAllowListDeps): string | undefined {
  const host = ctx.get('host').toLowerCase();
  if (!allowedHosts(deps, ctx.req.socket.localPort).has(host)) return `Invalid Host header: ${ctx.get('host')}`;
  const origin = ctx.get('origin');
  if (origin && origin !== new URL(deps.publicUrl()).origin) return `Invalid Origin header: ${origin}`;
  return undefined;
}
