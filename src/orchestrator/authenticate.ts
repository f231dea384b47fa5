/**
 * Turns a bearer credential into a Principal. API keys (`tsk_…`) and agent tokens (`tag_…`) are
 * opaque and looked up by SHA-256 hash; console, staff and buyer sessions are JWTs signed by the server. A page
 * session (the console's or buyer pages' HttpOnly cookie) is an opaque reference to a session's verified claims.
 */
import { decodeJwt, jwtVerify } from 'jose';
import type { Database } from '../storage/database.ts';
import { verifyAgentJwt } from '../domain/buyers/agent-credentials.ts';
import { keyAuthority } from '../domain/merchants/api-keys.ts';
import type { Clock } from '../kernel/clock.ts';
import { ToolError } from '../kernel/errors.ts';
import {
  AGENT_TOKEN_PREFIX,
  API_KEY_PREFIX,
  hashToken,
  sessionKey,
  SESSION_ISSUER,
  signSession,
  type SessionClaims,
} from '../kernel/tokens.ts';
import { ANONYMOUS, ROLES, type Principal, type Role } from '../kernel/principal.ts';
import { WebSessions, type WebSessionKind } from '../storage/web-sessions.ts';

/** Claims of a verified session JWT that are not the session itself (kept out of a page session's stored claims). */
const ENVELOPE_CLAIMS = new Set(['iss', 'iat', 'exp', 'nbf', 'jti', 'aud']);

interface ApiKeyLookup {
  id: string;
  organization_id: string;
  scopes: string[];
  last_used_at: string | null;
  created_by_user_id: string | null;
  /** The minter's role in the key's organization; null when they are no longer a member (or nobody minted it). */
  minter_role: string | null;
}

/** How precisely an API key's last use is recorded. */
const LAST_USED_RESOLUTION_MS = 60_000;

export class Authenticator {
  private readonly key: Uint8Array;
  private readonly db: Database;
  private readonly clock: Clock;
  private readonly audience: () => string;
  private readonly pages: WebSessions;

  /** `audience`: the service's own identifier (its public URL), the `aud` a brought agent's JWT must carry. */
  constructor(secret: string, db: Database, clock: Clock, audience: () => string = () => SESSION_ISSUER) {
    this.key = sessionKey(secret);
    this.db = db;
    this.clock = clock;
    this.audience = audience;
    this.pages = new WebSessions(db);
  }

  /**
   * Opens a page session for a session JWT this server just issued (a console or buyer sign-in answered to a page):
   * its verified claims are stored behind a new opaque reference, valid until the JWT's own expiry. `replaces`: the
   * page session the call was made with, ended now (an organization switch, a shop scope).
   */
  async openPageSession(
    kind: WebSessionKind,
    jwt: string,
    replaces?: string,
  ): Promise<{ token: string; expiresAt: Date }> {
    const payload = await this.verify(jwt);
    if (payload.typ !== kind || typeof payload.exp !== 'number') {
      throw new ToolError('unauthenticated', 'The session token is invalid or expired.');
    }
    const claims = Object.fromEntries(Object.entries(payload).filter(([name]) => !ENVELOPE_CLAIMS.has(name)));
    const now = this.clock.now();
    const expiresAt = new Date(payload.exp * 1000);
    const { token } = await this.pages.open(kind, claims, expiresAt, now);
    if (replaces) await this.pages.end(replaces, now);
    return { token, expiresAt };
  }

  /** The principal of a page session's reference (its cookie); unknown, signed out or expired is `unauthenticated`. */
  async pageSession(kind: WebSessionKind, token: string): Promise<Principal> {
    const found = await this.pages.find(token, kind, this.clock.now());
    if (!found) throw new ToolError('unauthenticated', 'The session has ended or expired: sign in again.');
    const expiresAt = Math.floor(found.expiresAt.getTime() / 1000);
    const principal = await this.fromClaims({ ...found.claims, exp: expiresAt });
    if (principal.kind === 'console_user' || principal.kind === 'buyer') principal.webSessionId = found.id;
    return principal;
  }

  /** Signs a session JWT valid for `ttlSeconds`. */
  sign(claims: SessionClaims, ttlSeconds: number): Promise<string> {
    return signSession(this.key, this.clock, claims, ttlSeconds);
  }

  /** The principal for a credential; no credential is anonymous; a bad one is `unauthenticated`. */
  async authenticate(credential: string | undefined): Promise<Principal> {
    if (!credential) return ANONYMOUS;
    if (credential.startsWith(API_KEY_PREFIX)) return this.apiKey(credential);
    if (credential.startsWith(AGENT_TOKEN_PREFIX)) return this.agent(credential);
    if (credential.split('.').length === 3) {
      if (isAgentJwt(credential)) return verifyAgentJwt(this.db, credential, this.audience(), this.clock.now());
      return this.session(credential);
    }
    throw new ToolError('unauthenticated', 'The bearer credential is not recognised.');
  }

  /** API-key lookups in flight, by token hash: concurrent calls with one key share one query (never a cache). */
  private readonly apiKeyLookups = new Map<string, Promise<Principal>>();

  private apiKey(token: string): Promise<Principal> {
    const hash = hashToken(token);
    let lookup = this.apiKeyLookups.get(hash);
    if (!lookup) {
      lookup = this.lookUpApiKey(hash).finally(() => this.apiKeyLookups.delete(hash));
      this.apiKeyLookups.set(hash, lookup);
    }
    return lookup;
  }

  private async lookUpApiKey(hash: string): Promise<Principal> {
    const now = this.clock.now();
    const [row] = await this.db.bound<ApiKeyLookup>(
      `select k.id, k.organization_id, k.scopes, k.last_used_at, k.created_by_user_id, m.role as minter_role
         from api_keys k
         left join memberships m on m.user_id = k.created_by_user_id and m.organization_id = k.organization_id
        where k.token_hash = $1 and k.revoked_at is null`,
      [hash],
    );
    if (!row) throw new ToolError('unauthenticated', 'The API key is unknown or revoked.');
    // A person's key acts with no more than the person's current role, and not at all once they left.
    const minter = { createdByUserId: row.created_by_user_id, minterRole: row.minter_role };
    const authority = keyAuthority({ scopes: row.scopes, ...minter });
    // Last use is recorded at most once a minute per key, so concurrent calls on one key never queue on its row.
    const last = row.last_used_at ? new Date(row.last_used_at).getTime() : 0;
    if (now.getTime() - last >= LAST_USED_RESOLUTION_MS) {
      await this.db.execute(
        'update api_keys set last_used_at = ? where id = ? and (last_used_at is null or last_used_at < ?)',
        [now, row.id, new Date(now.getTime() - LAST_USED_RESOLUTION_MS)],
      );
    }
    return { kind: 'api_key', keyId: row.id, organizationId: row.organization_id, ...authority };
  }

  /** A service-issued agent token: only an active agent's hash matches. */
  private async agent(token: string): Promise<Principal> {
    const rows = await this.db.execute<{ id: string; buyer_id: string }>(
      `select id, buyer_id from agents where token_hash = ? and status = 'active'`,
      [hashToken(token)],
    );
    const row = rows[0];
    if (!row) throw new ToolError('unauthenticated', 'The agent token is unknown, paused or deleted.');
    return { kind: 'agent', agentId: row.id, buyerId: row.buyer_id };
  }

  private async session(jwt: string): Promise<Principal> {
    return this.fromClaims(await this.verify(jwt));
  }

  /** A session JWT's verified payload; a bad signature, issuer or expiry is `unauthenticated`. */
  private async verify(jwt: string): Promise<Record<string, unknown>> {
    try {
      const { payload } = await jwtVerify(jwt, this.key, {
        issuer: SESSION_ISSUER,
        algorithms: ['HS256'],
        currentDate: this.clock.now(),
      });
      return payload;
    } catch {
      throw new ToolError('unauthenticated', 'The session token is invalid or expired.');
    }
  }

  /** The principal a session's claims describe (from a JWT, or stored behind a page session). */
  private async fromClaims(payload: Record<string, unknown>): Promise<Principal> {
    const sub = typeof payload.sub === 'string' ? payload.sub : undefined;
    if (!sub) throw new ToolError('unauthenticated', 'The session token is invalid or expired.');
    if (payload.typ === 'console' && typeof payload.org === 'string' && ROLES.includes(payload.role as Role)) {
      const role = await this.consoleRole(sub, payload.org, payload.role as Role);
      const principal: Principal = { kind: 'console_user', userId: sub, organizationId: payload.org, role };
      if (payload.inv === true) principal.invitation = true;
      if (typeof payload.exp === 'number') principal.expiresAt = payload.exp;
      return principal;
    }
    if (payload.typ === 'staff') return { kind: 'staff', userId: await this.staffUser(sub) };
    if (
      payload.typ === 'buyer' &&
      typeof payload.sid === 'string' &&
      (payload.mode === 'bounded' || payload.mode === 'full')
    ) {
      const mid = typeof payload.mid === 'string' ? payload.mid : null;
      const principal: Principal = {
        kind: 'buyer',
        buyerId: sub,
        sessionId: payload.sid,
        mode: payload.mode,
        merchantId: mid,
      };
      if (payload.att === true && payload.mode === 'bounded') principal.attested = true;
      if (typeof payload.lng === 'string') principal.lang = payload.lng;
      if (typeof payload.exp === 'number') principal.expiresAt = payload.exp;
      return principal;
    }
    throw new ToolError('unauthenticated', 'The session token is invalid or expired.');
  }

  /**
   * A console session holds only while its membership does: a removed member's sessions stop at once, and a
   * session never carries more than the membership's current role (a demoted owner acts as an integrator).
   */
  /** A staff session holds only while its user is still service staff: removing `users.is_staff` ends it at once. */
  private async staffUser(userId: string): Promise<string> {
    const [row] = await this.db.execute<{ id: string }>('select id from users where id = ? and is_staff', [userId]);
    if (!row) throw new ToolError('unauthenticated', 'The staff session is no longer valid: sign in again.');
    return row.id;
  }

  private async consoleRole(userId: string, organizationId: string, claimed: Role): Promise<Role> {
    const [row] = await this.db.execute<{ role: string }>(
      'select role from memberships where user_id = ? and organization_id = ?',
      [userId, organizationId],
    );
    if (!row || !(ROLES as readonly string[]).includes(row.role)) {
      throw new ToolError('unauthenticated', 'The console session is no longer valid: sign in again.');
    }
    return row.role === 'owner' ? claimed : (row.role as Role);
  }
}

/** A JWT whose issuer is an agent id (`agt_…`) was signed by a brought agent's own key, not by this server. */
function isAgentJwt(jwt: string): boolean {
  try {
    const iss = decodeJwt(jwt).iss;
    return typeof iss === 'string' && iss.startsWith('agt_');
  } catch {
    return false;
  }
}
