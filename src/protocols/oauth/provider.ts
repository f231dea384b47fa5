/**
 * The OAuth 2.1 authorization server for remote MCP clients, on `oidc-provider`: server metadata (RFC 8414),
 * authorization code with PKCE S256 only, public clients registered dynamically (RFC 7591), resource indicators
 * (RFC 8707: every access token's audience is the MCP endpoint), refresh-token rotation and revocation (RFC 7009).
 * Its records live in PostgreSQL (`src/storage/oauth-store.ts`), so every server process shares them. The authorize
 * step is the buyer's own flow on the buyer pages (`/buyer/authorize`, docs/oauth.md).
 */
import { generateKeyPairSync } from 'node:crypto';
import type Provider from 'oidc-provider';
import type { Configuration, errors, KoaContextWithOIDC } from 'oidc-provider';
import type { Logger } from 'pino';
import { describeError } from '../../kernel/errors.ts';
import type { Database } from '../../storage/database.ts';
import { OAuthStore } from '../../storage/oauth-store.ts';
import { ensureSetting } from '../../storage/settings.ts';
import { SecretBox } from '../../webhooks/secret-box.ts';
import type { AddressPolicy } from '../../webhooks/url-policy.ts';
import { clientIdDocumentBodyLimits, clientIdDocumentFeature, policyFetch } from './client-id-documents.ts';

/** Where the server's OAuth endpoints live; the metadata documents stay at the root well-known paths. */
export const OAUTH_PREFIX = '/oauth';
/** The only scope: act as the authorized agent inside its permission. */
export const AGENT_SCOPE = 'tessera:agent';
export const ACCESS_TOKEN_TTL_SECONDS = 60 * 60;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60;
/** The buyer has this long to sign in by e-mail, enter the code and set limits. */
export const INTERACTION_TTL_SECONDS = 30 * 60;

/** A registered client that never completed a grant is refused, then deleted by the retention pass, after this long. */
export const UNUSED_CLIENT_TTL_SECONDS = 24 * 60 * 60;
/** Bounds of a client's registered metadata (RFC 7591 registration is open, so what one client stores is bounded). */
export const CLIENT_METADATA_LIMITS = {
  nameChars: 200,
  stringChars: 2048,
  listEntries: 10,
  totalBytes: 16 * 1024,
} as const;

/**
 * Host names of loopback redirect URIs, the only ones allowed over plain http (MCP authorization, OAuth 2.1 §8.4.2).
 */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Why a client's metadata is refused, or undefined: a name over 200 characters, any other string over 2,048, a list of
 * more than 10 entries, more than 16 KiB in all (`invalid_client_metadata`), or a redirect URI that is neither https
 * nor http on loopback (`invalid_redirect_uri`). Runs at registration and whenever a stored client is loaded, and on
 * the client a metadata document describes (client-id-documents.ts).
 */
function clientMetadataProblem(
  metadata: Record<string, unknown>,
): InstanceType<typeof errors.InvalidClientMetadata | typeof errors.InvalidRedirectUri> | undefined {
  const { nameChars, stringChars, listEntries, totalBytes } = CLIENT_METADATA_LIMITS;
  const { errors } = oidc!; // the provider that calls this loaded it
  if (typeof metadata.client_name === 'string' && metadata.client_name.length > nameChars) {
    return new errors.InvalidClientMetadata(`client_name must be at most ${nameChars} characters`);
  }
  for (const [key, value] of Object.entries(metadata)) {
    if (Array.isArray(value) && value.length > listEntries)
      return new errors.InvalidClientMetadata(`${key} must have at most ${listEntries} entries`);
    const strings = Array.isArray(value) ? value : [value];
    if (strings.some((v) => typeof v === 'string' && v.length > stringChars)) {
      return new errors.InvalidClientMetadata(`${key} must hold strings of at most ${stringChars} characters`);
    }
  }
  if (Buffer.byteLength(JSON.stringify(metadata)) > totalBytes)
    return new errors.InvalidClientMetadata(`the client metadata must be at most ${totalBytes} bytes`);
  for (const uri of Array.isArray(metadata.redirect_uris) ? metadata.redirect_uris : []) {
    const parsed = typeof uri === 'string' ? URL.parse(uri) : null;
    if (parsed?.protocol === 'http:' && !LOOPBACK_HOSTS.has(parsed.hostname)) {
      return new errors.InvalidRedirectUri(
        'redirect_uris must use https, or http only on a loopback host (localhost, 127.0.0.1, [::1])',
      );
    }
  }
  return undefined;
}

type OidcModule = typeof import('oidc-provider');
/** oidc-provider, once loaded (its import is some 200 modules, left out of the start: docs/performance.md). */
let oidc: OidcModule | undefined;
let oidcLoading: Promise<OidcModule> | undefined;

/**
 * Loads oidc-provider once: the first OAuth request or token check waits for it, and `tessera serve` starts it right
 * after it is ready, in the background.
 */
export function loadOidcProvider(): Promise<OidcModule> {
  oidcLoading ??= import('oidc-provider').then((m) => (oidc = m));
  return oidcLoading;
}

/** Whether `err` is oidc-provider's own refusal (false while it is not loaded: then nothing of it can have thrown). */
export const isOidcProviderError = (err: unknown): boolean => !!oidc && err instanceof oidc.errors.OIDCProviderError;

/** The MCP endpoint as a resource indicator: the audience of every access token. */
export const mcpResource = (publicUrl: string) => `${publicUrl}/mcp`;

/** The signing key (id tokens for clients that ask `openid`): generated once, kept sealed with the server secret. */
async function signingJwk(db: Database, serverSecret: string): Promise<Record<string, unknown>> {
  const box = new SecretBox(serverSecret, 'tessera/oauth-signing-key');
  const sealed = await ensureSetting(db, 'oauth_signing_jwk', () => {
    const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
    return box.seal(JSON.stringify({ ...jwk, alg: 'ES256', use: 'sig', kid: 'tessera-oauth-1' }), 'oauth_signing_jwk');
  });
  const opened = box.open(sealed, 'oauth_signing_jwk');
  if (!opened) throw new Error('The OAuth signing key does not open with this server secret.');
  return JSON.parse(opened) as Record<string, unknown>;
}

/** The login prompt is asked on every authorization: the buyer names the agent and its limits for each client. */
function policy(interactionPolicy: OidcModule['interactionPolicy']) {
  const base = interactionPolicy.base();
  const login = base.get('login')!;
  login.checks.add(
    new interactionPolicy.Check(
      'buyer_authorizes_each_client',
      'The buyer authorizes every client on the service’s own screens.',
      (ctx: KoaContextWithOIDC) =>
        ctx.oidc.result?.login ? interactionPolicy.Check.NO_NEED_TO_PROMPT : interactionPolicy.Check.REQUEST_PROMPT,
    ),
    0,
  );
  return base;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface OAuthProviderDeps {
  db: Database;
  serverSecret: string;
  /** A key for the provider's signed cookies (derived from the server secret by the caller). */
  cookieKey: string;
  /** Whether the permission an account names still allows a token (a refused account ends code and refresh grants). */
  accountIsLive: (permissionId: string) => Promise<boolean>;
  /** Where a client ID metadata document may be fetched from (the webhooks' address policy). */
  documentPolicy: AddressPolicy;
  log: Logger;
}

/** Builds the provider for `issuer` (the public URL). */
export async function createOAuthProvider(issuer: string, deps: OAuthProviderDeps): Promise<Provider> {
  const { default: Provider, errors, interactionPolicy } = await loadOidcProvider();
  const resource = mcpResource(issuer);
  const { db } = deps;
  const configuration: Configuration = {
    // A client is stored to expire unless it completes a grant (the grant's save keeps it): registration is open, so
    // clients nobody uses do not pile up (the retention pass deletes them a day after they expired).
    adapter: class extends OAuthStore {
      private readonly name: string;
      constructor(name: string) {
        super(db, name);
        this.name = name;
      }
      override async upsert(id: string, payload: Record<string, unknown>, expiresIn?: number): Promise<void> {
        await super.upsert(id, payload, this.name === 'Client' ? (expiresIn ?? UNUSED_CLIENT_TTL_SECONDS) : expiresIn);
        if (this.name === 'Grant' && typeof payload.clientId === 'string') await this.keep('Client', payload.clientId);
      }
      /**
       * Spends a code or refresh token once. A token request naming another resource is refused before anything is
       * spent (the library checks the resource only after), so the grant stays as it was. Of concurrent exchanges or
       * refreshes exactly one spends it; the others are a reuse (RFC 6749 §4.1.2, OAuth 2.1 §4.3.1): invalid_grant,
       * and the grant is revoked with everything issued under it, as for a reuse that comes later.
       */
      override async consume(id: string): Promise<void> {
        const asked = Provider.ctx?.oidc.params?.resource;
        if (asked !== undefined && asked !== resource) {
          throw new errors.InvalidTarget(`The only resource is ${resource}.`);
        }
        if (await this.consumeOnce(id)) return;
        const grantId = await this.grantOf(id);
        if (grantId) await this.revokeGrant(grantId);
        const what = this.name === 'AuthorizationCode' ? 'authorization code' : 'refresh token';
        throw new errors.InvalidGrant(`${what} already used`);
      }
    },
    // Every client's metadata is bounded as a whole (the validator is called once, for client_name, with all of it).
    extraClientMetadata: {
      properties: ['client_name'],
      validator: (_ctx, key, _value, metadata) => {
        const problem = key === 'client_name' ? clientMetadataProblem(metadata as Record<string, unknown>) : undefined;
        if (problem) throw problem;
      },
    },
    jwks: { keys: [(await signingJwk(db, deps.serverSecret)) as never] },
    cookies: { keys: [deps.cookieKey] },
    // The account of a login is the permission the buyer granted: a token's subject names it (oauth-access.ts). Once
    // the permission is revoked or expired, or its agent paused or deleted, there is no account: exchanging a code or a
    // refresh token then answers invalid_grant.
    findAccount: async (_ctx, sub) =>
      (await deps.accountIsLive(sub)) ? { accountId: sub, claims: () => ({ sub }) } : undefined,
    clientAuthMethods: ['none'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    enabledJWA: { idTokenSigningAlgValues: ['ES256'] },
    responseTypes: ['code'],
    // The agent scope is also a server scope, so a client may name it when it registers (the MCP SDK sends the
    // protected resource's scopes_supported there); the access token carries it as the MCP endpoint's scope.
    scopes: ['openid', 'offline_access', AGENT_SCOPE],
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      registration: { enabled: true, initialAccessToken: false },
      // An https client_id URL names the client's metadata document, fetched instead of a registration.
      clientIdMetadataDocument: clientIdDocumentFeature(deps.documentPolicy, clientMetadataProblem),
      // A client revokes only its own tokens (RFC 7009 §2.1).
      revocation: { enabled: true, allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== resource) throw new errors.InvalidTarget(`The only resource is ${resource}.`);
          return {
            scope: AGENT_SCOPE,
            audience: resource,
            accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
            accessTokenFormat: 'opaque',
          };
        },
      },
    },
    fetch: policyFetch(deps.documentPolicy),
    fetchResponseBodyLimits: clientIdDocumentBodyLimits,
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: () => true,
    expiresWithSession: () => false,
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_SECONDS,
      AuthorizationCode: 60,
      RefreshToken: REFRESH_TOKEN_TTL_SECONDS,
      Grant: REFRESH_TOKEN_TTL_SECONDS,
      Interaction: INTERACTION_TTL_SECONDS,
      Session: INTERACTION_TTL_SECONDS,
      IdToken: ACCESS_TOKEN_TTL_SECONDS,
    },
    interactions: {
      url: (_ctx, interaction) => `${OAUTH_PREFIX}/interaction/${interaction.uid}`,
      policy: policy(interactionPolicy),
    },
    routes: {
      authorization: `${OAUTH_PREFIX}/authorize`,
      backchannel_authentication: `${OAUTH_PREFIX}/backchannel`,
      code_verification: `${OAUTH_PREFIX}/device`,
      challenge: `${OAUTH_PREFIX}/challenge`,
      device_authorization: `${OAUTH_PREFIX}/device/auth`,
      end_session: `${OAUTH_PREFIX}/session/end`,
      introspection: `${OAUTH_PREFIX}/token/introspection`,
      jwks: `${OAUTH_PREFIX}/jwks`,
      pushed_authorization_request: `${OAUTH_PREFIX}/par`,
      registration: `${OAUTH_PREFIX}/register`,
      revocation: `${OAUTH_PREFIX}/revoke`,
      token: `${OAUTH_PREFIX}/token`,
      userinfo: `${OAUTH_PREFIX}/me`,
      credential: `${OAUTH_PREFIX}/credential`,
    },
    // An error the browser cannot be sent back to the client with (unknown client, wrong redirect URI): a plain page
    // naming the RFC error code; never a stack.
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.set('Content-Security-Policy', "default-src 'none'");
      ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorization error</title></head><body><h1>Authorization error</h1><p><code>${escapeHtml(String(out.error))}</code>: ${escapeHtml(String(out.error_description ?? ''))}</p></body></html>`;
    },
  };
  const provider = new Provider(issuer, configuration);
  provider.proxy = false;
  // The client gets `server_error` with a generic description; the log gets the cause, never a stack or a token.
  provider.on('server_error', (_ctx: unknown, err: unknown) =>
    deps.log.error({ err: describeError(err) }, 'oauth server error'),
  );
  return provider;
}
