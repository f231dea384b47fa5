/**
 * The whole HTTP surface: generated tool routes, the OpenAPI document, docs, protocol adapters and operations
 * endpoints.
 */
import Router from '@koa/router';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Orchestrator } from './orchestrator/invoke.ts';
import type { Services } from './domain/context.ts';
import { buildAcpRouter } from './protocols/acp/router.ts';
import { buildUcpRouter } from './protocols/ucp/router.ts';
import { ap2Refusal } from './domain/ap2/refusal.ts';
import { reserveBatcher } from './domain/purchase/reserve-batcher.ts';
import { RECENT_WINDOW_MS } from './domain/purchase/reserve-admission.ts';
import { ToolError } from './kernel/errors.ts';
import { buildBuyerPagesRouter } from './buyer-pages/router.ts';
import { buildConsolePagesRouter } from './console-pages/router.ts';
import { buildPaymentsRouter } from './rest/provider-routes.ts';
import { buildExportDownloadRouter } from './rest/export-download.ts';
import { buildInvoiceDownloadRouter } from './rest/invoice-download.ts';
import { buildTicketFileRouter } from './rest/ticket-file-download.ts';
import { buildA2aRouter } from './protocols/a2a/router.ts';
import { buildMcpRouter } from './protocols/mcp/http.ts';
import { buildOAuthRouter } from './protocols/oauth/router.ts';
import type { OAuthServer } from './protocols/oauth/server.ts';
import { buildDevMailRouter, devMailEnabled } from './rest/dev-mail-page.ts';
import { buildDocsRouter } from './rest/docs-page.ts';
import { buildLandingRouter } from './rest/landing-page.ts';
import { buildOpenApi } from './rest/openapi.ts';
import { buildToolRouter } from './rest/routes.ts';
import { sendError } from './http/http.ts';

export interface RestDeps {
  orchestrator: Orchestrator;
  services: Services;
  metrics: Registry;
  log: Logger;
  /** The OAuth authorization server of remote MCP clients (docs/oauth.md). */
  oauth: OAuthServer;
}

export function buildRestRouter(deps: RestDeps): Router {
  const { orchestrator, services, metrics } = deps;
  const router = new Router();
  let openapi: { url: string; doc: Record<string, unknown> } | undefined;

  router.get('/v1/openapi.json', (ctx) => {
    const url = services.publicUrl();
    if (!openapi || openapi.url !== url) openapi = { url, doc: buildOpenApi(orchestrator.tools, { serverUrl: url }) };
    ctx.body = openapi.doc;
  });
  router.use(buildDocsRouter().routes());
  const devMail = devMailEnabled(services.config);
  if (devMail)
    router.use(
      buildDevMailRouter(services.db, { publicUrl: services.publicUrl, listenHost: services.config.host }).routes(),
    );
  router.use(buildLandingRouter({ devMail }).routes());
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    try {
      await services.db.execute('select 1');
      // Reserve admission is reported, not acted on: a process shedding load at a sale's opening works as designed, and
      // taking it out of the load balancer would only move its load to the others (docs/scaling.md).
      const { state, recent } = reserveBatcher(services).admissions;
      const windowSeconds = (2 * RECENT_WINDOW_MS) / 1000;
      ctx.body = { status: 'ready', reserves: { admission: state, ...recent, windowSeconds } };
    } catch {
      sendError(ctx, 503, new ToolError('unavailable', 'The database is not reachable.').toBody());
    }
  });
  router.get('/metrics', async (ctx) => {
    ctx.type = metrics.contentType;
    ctx.body = await metrics.metrics();
  });

  router.use(buildPaymentsRouter({ services, log: deps.log }).routes());
  // create_export's single-use CSV download links.
  router.use(buildExportDownloadRouter({ services, log: deps.log }).routes());
  router.use(buildInvoiceDownloadRouter({ services }).routes());
  // get_ticket_downloads' links: the tickets PDF and Apple Wallet passes.
  router.use(buildTicketFileRouter({ services, log: deps.log }).routes());

  const tools = buildToolRouter(orchestrator, services.publicUrl);
  router.use(tools.routes());
  router.use(tools.allowedMethods({ throw: false }));

  const mcp = buildMcpRouter({ orchestrator, services });
  router.use(mcp.routes());

  // MCP authorization: protected-resource and authorization-server metadata, the OAuth endpoints (/oauth/...).
  router.use(buildOAuthRouter({ services, orchestrator, oauth: deps.oauth }).routes());

  const a2a = buildA2aRouter({ orchestrator, services, log: deps.log });
  router.use(a2a.routes());

  // ACP's REST binding (protocol-shaped paths at the root) over the ACP tools; AP2 is refused, whatever the method.
  router.use(buildAcpRouter({ orchestrator }).routes());
  // UCP's business profile and REST binding (/.well-known/ucp, /ucp/v1/checkout-sessions…) over the UCP tools.
  router.use(
    buildUcpRouter({
      orchestrator,
      publicUrl: services.publicUrl,
      signingKeys: async () => [(await services.webhooks.ucpSigningKey()).publicJwk],
    }).routes(),
  );
  for (const path of ['/v1/ap2', '/v1/ap2/{*rest}']) {
    router.all(path, (ctx) => {
      const refusal = ap2Refusal();
      sendError(ctx, refusal.status, refusal.toBody());
    });
  }

  // The service's own buyer pages (sign-in, magic-link landing, agents, saved cards, permissions).
  router.use(buildBuyerPagesRouter({ services }).routes());

  // The merchant console's pages (/console/...): e-mailed sign-in and invitation links land here.
  router.use(buildConsolePagesRouter().routes());

  const known = orchestrator.tools.map((t) => ({
    method: t.http.method,
    pattern: new RegExp(`^${t.http.path.replace(/\{\w+\}/g, '[^/]+')}$`),
  }));
  router.all('/v1/{*rest}', (ctx) => {
    const allowed = [...new Set(known.filter((k) => k.pattern.test(ctx.path)).map((k) => k.method))];
    if (allowed.length) {
      ctx.set('Allow', allowed.join(', '));
      sendError(
        ctx,
        405,
        new ToolError('method_not_allowed', `${ctx.method} is not allowed here; use ${allowed.join(' or ')}.`).toBody(),
      );
      return;
    }
    sendError(ctx, 404, new ToolError('route_not_found', `No operation at ${ctx.method} ${ctx.path}.`).toBody());
  });
  return router;
}
