/**
 * `GET /`: a small page for a person who opens the server's address: where the console, the API, its reference, the
 * buyer pages and the health checks are.
 */
import Router from '@koa/router';

export interface LandingLinks {
  /** Whether the development mail outbox (`/dev/mail`) is served. */
  devMail: boolean;
}

const LINKS: readonly (readonly [string, string, string])[] = [
  ['/console', 'Merchant console', 'sign in by e-mail to run your events, orders, refunds, team and API keys'],
  ['/docs', 'API reference', 'every operation, generated from the tools (OpenAPI 3.1 at /v1/openapi.json)'],
  ['/v1/openapi.json', 'OpenAPI document', 'for REST clients and code generators'],
  ['/buyer/sign-in', 'Buyer pages', 'sign in by e-mail, then manage agents, saved cards and permissions'],
  ['/.well-known/agent-card.json', 'A2A agent card', 'skills for peer agents; JSON-RPC at /a2a/jsonrpc'],
  ['/.well-known/acp.json', 'ACP discovery', 'Agentic Commerce Protocol checkout sessions'],
  ['/healthz', 'Health', 'the process answers'],
  ['/readyz', 'Readiness', 'the database answers'],
  ['/metrics', 'Metrics', 'Prometheus text'],
];

export function buildLandingRouter(links: LandingLinks): Router {
  const router = new Router();
  const items = [
    ...LINKS,
    ...(links.devMail
      ? [['/dev/mail', 'Development mail outbox', 'sign-in links and codes while no SMTP server is set'] as const]
      : []),
  ]
    .map(([href, name, what]) => `<li><a href="${href}">${name}</a> — ${what}</li>`)
    .join('\n');
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Tessera</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}code{background:#f4f4f5;padding:0 .25rem}</style></head>
<body><main><h1>Tessera</h1>
<p>Secure agentic checkout for live-events ticketing: quote → reserve → confirm over REST, MCP and A2A.</p>
<ul>
${items}
</ul>
<p>MCP clients connect to <code>/mcp</code> (Streamable HTTP) with a bearer token, or run <code>npx tessera mcp</code> over stdio.</p>
</main></body></html>`;
  router.get('/', (ctx) => {
    ctx.set(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    );
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = body;
  });
  return router;
}
