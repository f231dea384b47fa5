/**
 * The OAuth surface: protected-resource metadata (RFC 9728) for `/mcp`, the authorization server's metadata at the
 * root well-known paths (RFC 8414 and OpenID discovery, the ones MCP clients look up), every `/oauth/...` endpoint of
 * the provider, and the end of the buyer's authorize step (`/oauth/interaction/:uid/...`).
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import type Provider from 'oidc-provider';
import type { Interaction } from 'oidc-provider';
import type { Services } from '../../domain/context.ts';
import { withdrawOAuthAuthorization, type OAuthAuthorization } from '../../domain/buyers/oauth-access.ts';
import { requestInfo, sendError } from '../../http/http.ts';
import { credentialOf } from '../../http/page-session.ts';
import { chargeUnverified } from '../../http/route-charges.ts';
import { parseJsonObject, readRaw } from '../../http/read-body.ts';
import { ToolError } from '../../kernel/errors.ts';
import type { Orchestrator } from '../../orchestrator/invoke.ts';
import { AGENT_SCOPE, isOidcProviderError, mcpResource, OAUTH_PREFIX } from './provider.ts';
import type { OAuthServer } from './server.ts';

/** The protected-resource metadata of `/mcp`: which authorization server issues its tokens. */
export function protectedResourceMetadata(publicUrl: string) {
  return {
    resource: mcpResource(publicUrl),
    authorization_servers: [publicUrl],
    bearer_methods_supported: ['header'],
    scopes_supported: [AGENT_SCOPE],
    resource_name: 'Tessera MCP',
    resource_documentation: `${publicUrl}/docs`,
  };
}

/** The URL a 401 from `/mcp` names in `WWW-Authenticate: Bearer resource_metadata="…"`. */
export const resourceMetadataUrl = (publicUrl: string) => `${publicUrl}/.well-known/oauth-protected-resource/mcp`;

const UID = /^[A-Za-z0-9_-]{8,64}$/;

export function buildOAuthRouter(deps: { services: Services; orchestrator: Orchestrator; oauth: OAuthServer }): Router {
  const { services, orchestrator, oauth } = deps;
  const router = new Router();
  /** The endpoints that also spend the stricter budget of sign-in, code and token endpoints. */
  const strict = new Set([`${OAUTH_PREFIX}/token`, `${OAUTH_PREFIX}/register`]);

  for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
    router.get(path, async (ctx) => {
      if (!(await chargeUnverified(ctx))) return;
      ctx.set('Access-Control-Allow-Origin', '*');
      ctx.body = protectedResourceMetadata(services.publicUrl());
    });
  }

  /**
   * Hands the request to the provider (a Koa app of its own) as is, once its address is charged: the provider never
   * looks at our bearer credentials, so a bearer must not spare the address's budget (registration and the token
   * endpoint also spend the stricter one of sign-in, code and token endpoints).
   */
  const delegate = async (ctx: Context, url?: string) => {
    if (!(await chargeUnverified(ctx, ctx.method === 'POST' && strict.has(ctx.path)))) return;
    const provider = await oauth.provider();
    if (url) ctx.req.url = url;
    ctx.respond = false;
    await provider.callback()(ctx.req, ctx.res);
  };
  router.get('/.well-known/openid-configuration', (ctx) => delegate(ctx));
  router.get('/.well-known/oauth-authorization-server', (ctx) => delegate(ctx, '/.well-known/openid-configuration'));

  /** The provider sends the browser here to authorize: the buyer's own pages take over. */
  router.get(`${OAUTH_PREFIX}/interaction/:uid`, async (ctx) => {
    if (!(await chargeUnverified(ctx))) return;
    const uid = ctx.params.uid ?? '';
    let locales: unknown;
    try {
      const details = await (await oauth.provider()).interactionDetails(ctx.req, ctx.res);
      if (details.uid !== uid) throw new Error('interaction mismatch');
      // The client's `ui_locales` (OpenID Connect) from the authorization request: the first one names the page
      // language.
      locales = details.params.ui_locales;
    } catch {
      return sendError(ctx, 400, new ToolError('oauth_interaction_invalid').toBody());
    }
    const first = typeof locales === 'string' ? locales.split(' ')[0] : undefined;
    const lang = first ? `&lang=${encodeURIComponent(first)}` : '';
    ctx.status = 303;
    ctx.redirect(`/buyer/authorize?interaction=${encodeURIComponent(uid)}${lang}`);
  });

  /**
   * Who is asking, for the buyer to see before granting anything: the client's registered name and where it returns.
   */
  router.get(`${OAUTH_PREFIX}/interaction/:uid/details`, async (ctx) => {
    if (!(await chargeUnverified(ctx))) return;
    const provider = await oauth.provider();
    const details = await provider.interactionDetails(ctx.req, ctx.res).catch(() => undefined);
    if (!details || details.uid !== ctx.params.uid)
      return sendError(ctx, 400, new ToolError('oauth_interaction_invalid').toBody());
    const client = await provider.Client.find(String(details.params.client_id));
    const redirect = new URL(String(details.params.redirect_uri));
    ctx.body = { clientName: client?.clientName ?? String(details.params.client_id), redirectOrigin: redirect.origin };
  });

  /**
   * The buyer's page finishes the authorize step: with the buyer's session as bearer, it sends what the buyer
   * authorizes with the one e-mailed code (`authorize_agent`'s input: name, card, limits, `challengeId`, `code`), or
   * refuses. The interaction is checked first; then `authorize_agent` creates the agent and its permission (and saves a
   * card just entered) and the client's grant is recorded: one outcome, so an authorization whose grant cannot be
   * recorded is withdrawn. An existing permission cannot be handed over: every client gets authority the code
   * confirmed. The answer is where the browser goes next (back through the provider to the client).
   */
  router.post(`${OAUTH_PREFIX}/interaction/:uid/:outcome`, async (ctx) => {
    const uid = ctx.params.uid ?? '';
    const outcome = ctx.params.outcome;
    if (!UID.test(uid) || (outcome !== 'complete' && outcome !== 'abort'))
      return sendError(ctx, 404, new ToolError('route_not_found').toBody());
    if (!(await chargeUnverified(ctx))) return;
    try {
      const provider = await oauth.provider();
      let details;
      try {
        details = await provider.interactionDetails(ctx.req, ctx.res);
      } catch {
        throw new ToolError('oauth_interaction_invalid');
      }
      if (details.uid !== uid) throw new ToolError('oauth_interaction_invalid');
      if (outcome === 'abort') {
        const redirectTo = await provider.interactionResult(
          ctx.req,
          ctx.res,
          { error: 'access_denied', error_description: 'The buyer declined.' },
          { mergeWithLastSubmission: false },
        );
        ctx.body = { redirectTo };
        return;
      }
      const input = parseJsonObject(await readRaw(ctx.req, 4096), ctx.get('content-type') || undefined);
      // The buyer page's session: its bearer, or its page session's cookie (docs/console.md, "Sessions").
      const presented = credentialOf(ctx, services.publicUrl());
      // One consent per interaction: a second (or concurrent) completion creates nothing.
      if (!(await oauth.claimInteraction(uid, details.exp - Math.floor(Date.now() / 1000))))
        throw new ToolError('oauth_interaction_invalid');
      let created: OAuthAuthorization | undefined;
      try {
        const result = await orchestrator.invoke({
          tool: 'authorize_agent',
          input,
          ...presented,
          request: requestInfo(ctx, 'rest'),
        });
        if (!result.ok) {
          await oauth.releaseInteraction(uid); // refused (a wrong code, say): nothing was created; the buyer may retry
          return sendError(ctx, result.status, result.error);
        }
        const out = result.output as {
          agent: { id: string };
          permission: { id: string };
          instrument: { id: string };
          cardSaved: boolean;
        };
        created = {
          permissionId: out.permission.id,
          agentId: out.agent.id,
          savedInstrumentId: out.cardSaved ? out.instrument.id : undefined,
        };
        ctx.body = { redirectTo: await grantTo(ctx, provider, details, created.permissionId) };
      } catch (err) {
        const undo = created;
        if (undo) await services.db.transaction((em) => withdrawOAuthAuthorization(em, undo, services.clock.now()));
        await oauth.releaseInteraction(uid);
        // The provider's own refusal (the interaction ended or expired meanwhile): the step is over, nothing kept.
        throw isOidcProviderError(err) ? new ToolError('oauth_interaction_invalid') : err;
      }
    } catch (err) {
      // Anything else reaches the error guard: a generic 500 body, the cause logged.
      if (!(err instanceof ToolError)) throw err;
      sendError(ctx, err.status, err.toBody());
    }
  });

  /** Records the client's grant of `permissionId` for the interaction, and returns where the browser goes next. */
  const grantTo = async (ctx: Context, provider: Provider, details: Interaction, permissionId: string) => {
    // RFC 6749 §3.3: a request without `scope` gets the default one, the agent scope (set on the stored request, which
    // the provider resumes with; it would otherwise end in access_denied, no scope having been asked for).
    const scopeOf = () => (typeof details.params.scope === 'string' ? details.params.scope : '');
    let changed = !scopeOf().trim();
    if (changed) details.params.scope = AGENT_SCOPE;
    // Each authorization stands alone (login is asked every time). A provider session an earlier authorization left
    // in this browser is for another account (another permission), so the provider would first log it out through
    // an auto-submitted form (an inline script our CSP blocks, leaving the buyer on a blank page): end it here.
    if (details.session) {
      const earlier = details.session.cookie ? await provider.Session.find(details.session.cookie) : undefined;
      await earlier?.destroy();
      delete details.session;
      changed = true;
    }
    if (changed) await details.save(details.exp - Math.floor(Date.now() / 1000));
    const grant = new provider.Grant({ accountId: permissionId, clientId: String(details.params.client_id) });
    grant.addResourceScope(mcpResource(services.publicUrl()), AGENT_SCOPE);
    const requested = scopeOf().split(' ');
    const oidc = requested.filter((s) => s === 'openid' || s === 'offline_access' || s === AGENT_SCOPE);
    if (oidc.length) grant.addOIDCScope(oidc.join(' '));
    const grantId = await grant.save();
    const result = { login: { accountId: permissionId, remember: false }, consent: { grantId } };
    return provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: false });
  };

  router.all(`${OAUTH_PREFIX}/{*rest}`, (ctx) => delegate(ctx));
  return router;
}
