/**
 * The OAuth server of one app: its provider (built for the public URL once it is known) and access-token
 * authentication.
 */
import type Provider from 'oidc-provider';
import type { Logger } from 'pino';
import { oauthAgentPrincipal } from '../../domain/buyers/oauth-access.ts';
import type { Services } from '../../domain/context.ts';
import { ToolError } from '../../kernel/errors.ts';
import type { Principal } from '../../kernel/principal.ts';
import { AGENT_TOKEN_PREFIX, API_KEY_PREFIX } from '../../kernel/tokens.ts';
import { OAuthStore } from '../../storage/oauth-store.ts';
import { createOAuthProvider, mcpResource } from './provider.ts';

/** The record kind of a claimed interaction end (not an oidc-provider model). */
const INTERACTION_CLAIM = 'InteractionClaim';

/** oidc-provider's opaque tokens: 43 base64url characters (API keys and agent tokens carry their own prefixes). */
const OPAQUE_TOKEN = /^[A-Za-z0-9_-]{43}$/;

export class OAuthServer {
  private readonly services: Services;
  private readonly serverSecret: string;
  private built: { issuer: string; provider: Promise<Provider> } | undefined;

  private readonly log: Logger;

  constructor(services: Services, serverSecret: string, log: Logger) {
    this.services = services;
    this.serverSecret = serverSecret;
    this.log = log.child({ component: 'oauth' });
  }

  /** The provider for the current public URL (the port is known only after listen). */
  provider(): Promise<Provider> {
    const issuer = this.services.publicUrl();
    if (!this.built || this.built.issuer !== issuer) {
      const cookieKey = this.services.identity.hmac('tessera/oauth-cookies');
      const { db, clock } = this.services;
      const accountIsLive = (permissionId: string) =>
        oauthAgentPrincipal(db, permissionId, clock.now()).then(
          () => true,
          () => false,
        );
      this.built = {
        issuer,
        provider: createOAuthProvider(issuer, {
          db,
          serverSecret: this.serverSecret,
          cookieKey,
          accountIsLive,
          documentPolicy: { allowLoopback: this.services.config.oauthClientIdDocumentsAllowLoopback },
          log: this.log,
        }),
      };
    }
    return this.built.provider;
  }

  /**
   * Claims the end of interaction `uid` for one request (until `expiresIn` seconds, the interaction's own end): the
   * buyer's consent runs once per interaction, so concurrent or repeated completions create nothing more.
   */
  claimInteraction(uid: string, expiresIn: number): Promise<boolean> {
    return new OAuthStore(this.services.db, INTERACTION_CLAIM).claim(uid, Math.max(1, expiresIn));
  }

  /** Gives a claim back (the consent was refused and may be tried again). */
  releaseInteraction(uid: string): Promise<void> {
    return new OAuthStore(this.services.db, INTERACTION_CLAIM).destroy(uid);
  }

  /** Whether a bearer has the form of one of this server's access tokens. */
  isAccessToken(credential: string | undefined): credential is string {
    return (
      !!credential &&
      OPAQUE_TOKEN.test(credential) &&
      !credential.startsWith(API_KEY_PREFIX) &&
      !credential.startsWith(AGENT_TOKEN_PREFIX)
    );
  }

  /**
   * The agent an access token acts as, inside its permission. The token must be live (not expired, revoked or
   * rotated away), its grant still stored, and issued for the MCP endpoint; the permission and the agent are read on
   * every call.
   */
  async authenticate(token: string): Promise<Principal> {
    const provider = await this.provider();
    const found = await provider.AccessToken.find(token);
    const audience = mcpResource(this.services.publicUrl());
    const aud = found?.aud;
    const forMcp = Array.isArray(aud) ? aud.includes(audience) : aud === audience;
    // The grant too: a reused code or refresh token revokes it, with tokens a concurrent winner may have saved after.
    const grant = found?.grantId ? await provider.Grant.find(found.grantId) : undefined;
    if (!found || found.isExpired || !forMcp || !found.accountId || !grant) {
      throw new ToolError('unauthenticated', 'The access token is unknown, expired or revoked.');
    }
    return oauthAgentPrincipal(this.services.db, found.accountId, this.services.clock.now());
  }
}
