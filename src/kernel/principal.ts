/** Who is calling: the adapters turn a credential into one of these; the orchestrator decides what it may do. */

export const SCOPES = ['merchant:read', 'merchant:write', 'merchant:admin', 'mandates:attest'] as const;
export type Scope = (typeof SCOPES)[number];

export const ROLES = ['owner', 'integrator'] as const;
export type Role = (typeof ROLES)[number];

export type Principal =
  | { kind: 'anonymous' }
  | {
      kind: 'api_key';
      keyId: string;
      organizationId: string;
      scopes: readonly Scope[];
      /** The current role of the person who minted the key, which it never acts above; absent when no person did. */
      role?: Role;
    }
  | {
      kind: 'console_user';
      userId: string;
      organizationId: string;
      role: Role;
      /** A session opened by accepting an invitation: it acts only in the inviting organization (no switching). */
      invitation?: true;
      /** When the session ends (epoch seconds). */
      expiresAt?: number;
      /** The page session (cookie) the call was made with, when it was (docs/console.md, "Sessions"). */
      webSessionId?: string;
    }
  | { kind: 'staff'; userId: string }
  | {
      kind: 'buyer';
      buyerId: string;
      sessionId: string;
      mode: 'bounded' | 'full';
      merchantId: string | null;
      /** A bounded session minted with `merchantAttested: true` by an organization enabled for attested consent. */
      attested?: boolean;
      /** The buyer-page language the session was opened with, when one was chosen. */
      lang?: string;
      /** When the session ends (epoch seconds, its JWT's exp): a session rescoped to a shop ends no later. */
      expiresAt?: number;
      /** The page session (cookie) the call was made with, when it was. */
      webSessionId?: string;
    }
  | {
      kind: 'agent';
      agentId: string;
      buyerId: string;
      /**
       * An OAuth access token acts inside this one permission only (docs/oauth.md); agent tokens and keys carry none.
       */
      permissionId?: string;
    };

export type PrincipalKind = Principal['kind'];

export const ANONYMOUS: Principal = { kind: 'anonymous' };

/** A stable string naming the caller, used to scope idempotency keys and rate limits. */
export function principalKey(p: Principal): string {
  switch (p.kind) {
    case 'anonymous':
      return 'anonymous';
    case 'api_key':
      return `key:${p.keyId}`;
    case 'console_user':
      return `user:${p.userId}:${p.organizationId}`;
    case 'staff':
      return `staff:${p.userId}`;
    case 'buyer':
      return `buyer:${p.sessionId}`;
    case 'agent':
      return `agent:${p.agentId}`;
  }
}

/** The organization a merchant-side principal acts for, or null. */
export function organizationOf(p: Principal): string | null {
  return p.kind === 'api_key' || p.kind === 'console_user' ? p.organizationId : null;
}
