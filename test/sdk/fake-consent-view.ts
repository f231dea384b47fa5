/**
 * Stand-ins for the consent view's side of the embed protocol (docs/embedding.md), to test the SDK's origin checks
 * on their own: the view (`/embed/consent`: says `ready`, logs what it receives, buttons post the other events), a
 * rogue frame on the view's own origin, and an impostor on a third origin that the view redirects to for
 * `shop=shop_impostor`. Every page logs each message it receives into `#log` (one JSON object a line).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const page = (title: string, script: string, body = '') => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>
<body><h1>${title}</h1>${body}<pre id="log"></pre><script>
const params = new URLSearchParams(location.search);
const partner = params.get('origin');
const host = params.get('mode') === 'popup' ? window.opener : window.parent;
const log = (entry) => { document.getElementById('log').textContent += JSON.stringify(entry) + '\\n'; };
const send = (type, payload, target) => host.postMessage({ source: 'tessera-consent', version: 1, type, ...payload }, target ?? partner);
window.addEventListener('message', (event) => log({ origin: event.origin, fromHost: event.source === host, data: event.data }));
${script}
</script></body></html>`;

const VIEW = page(
  'Fake consent view',
  `window.addEventListener('message', (event) => {
  if (event.origin === partner && event.source === host && event.data?.type === 'session') send('resize', { height: 432 });
});
for (const [id, type, payload] of [['complete', 'completed', { permissionId: 'perm_fake' }], ['cancel', 'cancelled', {}], ['fail', 'error', { code: 'not_found', message: 'No such shop.' }], ['grow', 'resize', { height: 640 }]]) {
  document.getElementById(id).addEventListener('click', () => send(type, payload));
}
send('ready', {});`,
  '<button id="complete">Complete</button><button id="cancel">Cancel</button><button id="fail">Fail</button><button id="grow">Grow</button>',
);

/** On the view's origin, but not the window the SDK opened: whatever it says must be ignored. */
const ROGUE = page('Rogue frame', `send('completed', { permissionId: 'perm_rogue' }, '*');`);

/**
 * On another origin: it claims to be the view, asks for the session and reports a completion, and echoes to its
 * parent everything it receives (`{ echo: data }`): messages from one window arrive in order, so once the echo of a
 * later message is back, an earlier one that was delivered has been echoed too.
 */
const IMPOSTOR = page(
  'Impostor',
  `window.addEventListener('message', (event) => host.postMessage({ echo: event.data }, '*'));
send('ready', {}, '*');
send('completed', { permissionId: 'perm_impostor' }, '*');`,
);

export interface FakeViews {
  /** The view's base URL (`http://127.0.0.1:<port>`): the SDK's `baseUrl`. */
  baseUrl: string;
  /** The impostor's origin. */
  impostorOrigin: string;
  close(): Promise<void>;
}

function serve(
  routes: (path: string, url: URL) => { status: number; body?: string; location?: string },
): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const r = routes(url.pathname, url);
    res.writeHead(r.status, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'close',
      ...(r.location ? { location: r.location } : {}),
    });
    res.end(r.body ?? '');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const portOf = (s: Server) => (s.address() as AddressInfo).port;

export async function startFakeViews(): Promise<FakeViews> {
  const impostor = await serve((path) =>
    path === '/embed/consent' ? { status: 200, body: IMPOSTOR } : { status: 404 },
  );
  const impostorOrigin = `http://127.0.0.1:${portOf(impostor)}`;
  const view = await serve((path, url) => {
    if (path === '/rogue') return { status: 200, body: ROGUE };
    if (path !== '/embed/consent') return { status: 404 };
    if (url.searchParams.get('shop') === 'shop_impostor')
      return { status: 302, location: `${impostorOrigin}${path}${url.search}` };
    return { status: 200, body: VIEW };
  });
  const close = (s: Server) => new Promise<void>((resolve) => s.close(() => resolve()));
  return {
    baseUrl: `http://127.0.0.1:${portOf(view)}`,
    impostorOrigin,
    close: async () => {
      await close(view);
      await close(impostor);
    },
  };
}
