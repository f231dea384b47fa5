/**
 * API-key management for the console (spec §5.3–5.4): owners and integrators create keys, integrators may
 * never grant merchant:admin nor mandates:attest and may revoke only keys they minted; `mandates:attest` is held
 * alone (an attest-only key) and only by organizations enabled for attested consent. A key a person minted acts with
 * that person's current role in its organization, and stops when they leave it (`keyAuthority`).
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey, type ApiKeyRow } from '../../storage/entities/api-key.ts';
import { Organization } from '../../storage/entities/organization.ts';
import { sql } from '../../storage/database.ts';
import { isoOrNull } from '../../kernel/wire.ts';
import { ToolError } from '../../kernel/errors.ts';
import { issueApiKey, type IssuedKey } from './merchants.ts';
import { liveFirst, lockCaps, MAX_API_KEYS_PER_ORGANIZATION, refuseAtLimit } from '../limits.ts';
import { ROLES, SCOPES, type Principal, type Role, type Scope } from '../../kernel/principal.ts';
import type { BusinessEvents } from '../../kernel/business-events.ts';

type ConsoleUser = Extract<Principal, { kind: 'console_user' }>;

/**
 * The scopes a key may carry for a member of each role. An integrator never merchant:admin (spec §5.4), nor
 * mandates:attest: attesting a buyer's consent is the organization's contractual act, and only an owner may withdraw
 * what it created, so it is an owner's power too (a decision beyond the spec, which names only merchant:admin).
 */
export const KEY_SCOPES_FOR: Record<Role, readonly Scope[]> = {
  owner: SCOPES,
  integrator: ['merchant:read', 'merchant:write'],
};

/** What a key may do at one use: its scopes and, for a key a person minted, the role it acts with. */
export interface KeyAuthority {
  scopes: Scope[];
  /** The minter's current role; tools restricted to roles (`auth.roles`) refuse a key whose role they do not admit. */
  role?: Role;
}

/**
 * The authority of a key at use (issue #32, 3), re-checked on every call so that no path (removal, demotion, a
 * membership deleted by hand) leaves a person's key stronger than the person: a key minted by a member acts with
 * that member's current role in the key's organization (an integrator's key cannot refund, cancel, change the
 * catalog or the shop's settings, whatever its scopes) and keeps only the scopes that role may carry; a key whose
 * minter is no longer a member answers `unauthenticated`. A key no person minted (`createdByUserId` null: made by an
 * operator's script, never by the console or `tessera bootstrap`, whose key is its owner's) keeps its scopes.
 */
export function keyAuthority(key: {
  scopes: readonly string[];
  createdByUserId: string | null;
  minterRole: string | null;
}): KeyAuthority {
  const scopes = key.scopes.filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));
  if (key.createdByUserId === null) return { scopes };
  if (!(ROLES as readonly string[]).includes(key.minterRole ?? '')) {
    throw new ToolError('unauthenticated', 'The API key no longer works: its creator left the organization.');
  }
  const role = key.minterRole as Role;
  return { scopes: scopes.filter((s) => KEY_SCOPES_FOR[role].includes(s)), role };
}

/** `active`, `revoked`, or — for an attest key while its organization's attestation is off — `attestation_disabled`. */
export function keyState(k: ApiKeyRow, attestationEnabled: boolean): 'active' | 'revoked' | 'attestation_disabled' {
  if (k.revokedAt) return 'revoked';
  return k.scopes.includes('mandates:attest') && !attestationEnabled ? 'attestation_disabled' : 'active';
}

/** The wire form; `lastUsedAt: null` is "No usage recorded". */
export function apiKeyOut(k: ApiKeyRow, attestationEnabled: boolean) {
  return {
    id: k.id,
    name: k.name,
    tokenPrefix: k.tokenPrefix,
    scopes: [...k.scopes] as Scope[],
    state: keyState(k, attestationEnabled),
    createdByUserId: k.createdByUserId ?? null,
    createdAt: isoOrNull(k.createdAt)!,
    lastUsedAt: isoOrNull(k.lastUsedAt),
    revokedAt: isoOrNull(k.revokedAt),
  };
}

/** Whether the organization may hold attest keys (attested consent enabled by staff). */
export async function attestAvailable(em: EntityManager, organizationId: string): Promise<boolean> {
  const org = await em.findOne(Organization, { id: organizationId });
  return org?.attestationEnabled === true;
}

/** Creates a key under the role rules; the token is returned once (an `api_key_created` event, once committed). */
export async function createKey(
  em: EntityManager,
  user: ConsoleUser,
  input: { name: string; scopes: Scope[] },
  now: Date,
  events: BusinessEvents,
): Promise<{ key: ApiKeyRow; issued: IssuedKey }> {
  const scopes = [...new Set(input.scopes)];
  const refused = scopes.find((s) => !KEY_SCOPES_FOR[user.role].includes(s));
  if (refused) throw new ToolError('forbidden', `An ${user.role} may never grant ${refused}.`, { scope: refused });
  if (scopes.includes('mandates:attest')) {
    if (scopes.length > 1)
      throw new ToolError('invalid_input', 'mandates:attest is held alone: create an attest-only key.', {
        field: 'scopes',
      });
    if (!(await attestAvailable(em, user.organizationId)))
      throw new ToolError(
        'merchant_consent_not_enabled',
        'Attest-only keys are available to organizations enabled for attested consent.',
      );
  }
  await lockCaps(em, user.organizationId);
  const live = await em.count(ApiKey, { organizationId: user.organizationId, revokedAt: null });
  refuseAtLimit(live, MAX_API_KEYS_PER_ORGANIZATION, 'live_api_keys_per_organization');
  const issued = issueApiKey(em, {
    organizationId: user.organizationId,
    name: input.name,
    scopes,
    createdByUserId: user.userId,
    now,
  });
  await em.flush();
  const { organizationId, userId: byUserId } = user;
  events.record({ event: 'api_key_created', keyId: issued.id, organizationId, byUserId });
  return { key: await em.findOneOrFail(ApiKey, { id: issued.id }), issued };
}

/** Revokes a key of the caller's organization (404 otherwise); an integrator only keys it minted (403). */
export async function revokeKey(
  em: EntityManager,
  user: ConsoleUser,
  id: string,
  now: Date,
  events: BusinessEvents,
): Promise<ApiKeyRow> {
  const key = await em.findOne(ApiKey, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!key || key.organizationId !== user.organizationId)
    throw new ToolError('not_found', `No API key ${id}.`, { keyId: id });
  if (user.role === 'integrator' && key.createdByUserId !== user.userId) {
    throw new ToolError('forbidden', 'An integrator may revoke only the keys it minted.', { keyId: id });
  }
  if (!key.revokedAt) {
    key.revokedAt = now;
    events.record({ event: 'api_key_revoked', keyId: id, organizationId: user.organizationId, byUserId: user.userId });
  }
  await em.flush();
  return key;
}

/**
 * The organization's API keys, newest first: every live one (at most MAX_API_KEYS_PER_ORGANIZATION) and the newest
 * revoked ones up to that many; and whether it may hold attest keys.
 */
export async function listKeys(em: EntityManager, organizationId: string) {
  const enabled = await attestAvailable(em, organizationId);
  const max = MAX_API_KEYS_PER_ORGANIZATION;
  const order = { orderBy: { createdAt: 'desc', id: 'desc' }, limit: max } as const;
  const live = await em.find(ApiKey, { organizationId, revokedAt: null }, order);
  const past =
    live.length < max
      ? await em.find(ApiKey, { organizationId, revokedAt: { $ne: null } }, { ...order, limit: max - live.length })
      : [];
  const keys = liveFirst(live, past, max);
  return { apiKeys: keys.map((k) => apiKeyOut(k, enabled)), attestAvailable: enabled };
}

/** Revokes every live key `userId` minted in the organization (they leave it); returns the keys' ids. */
export async function revokeKeysMintedBy(
  em: EntityManager,
  organizationId: string,
  userId: string,
  now: Date,
): Promise<string[]> {
  const rows = await sql<{ id: string }>(
    em,
    `update api_keys set revoked_at = ?
      where organization_id = ? and created_by_user_id = ? and revoked_at is null returning id`,
    [now, organizationId, userId],
  );
  return rows.map((r) => r.id).sort();
}
