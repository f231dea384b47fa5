/**
 * API-key management for the console (spec §5.3–5.4): owners and integrators create keys, integrators may
 * never grant merchant:admin and may revoke only keys they minted; `mandates:attest` is held alone (an
 * attest-only key) and only by organizations enabled for attested consent.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey, type ApiKeyRow } from '../../storage/entities/api-key.ts';
import { Organization } from '../../storage/entities/organization.ts';
import { isoOrNull } from '../../kernel/wire.ts';
import { ToolError } from '../../kernel/errors.ts';
import { issueApiKey, type IssuedKey } from './merchants.ts';
import type { Principal, Scope } from '../../kernel/principal.ts';

type ConsoleUser = Extract<Principal, { kind: 'console_user' }>;

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

/** Creates a key under the role rules; the token is returned once. */
export async function createKey(em: EntityManager, user: ConsoleUser, input: { name: string; scopes: Scope[] }, now: Date): Promise<{ key: ApiKeyRow; issued: IssuedKey }> {
  const scopes = [...new Set(input.scopes)];
  if (user.role === 'integrator' && scopes.includes('merchant:admin')) {
    throw new ToolError('forbidden', 'An integrator may never grant merchant:admin.', { scope: 'merchant:admin' });
  }
  if (scopes.includes('mandates:attest')) {
    if (scopes.length > 1) throw new ToolError('invalid_input', 'mandates:attest is held alone: create an attest-only key.', { field: 'scopes' });
    if (!(await attestAvailable(em, user.organizationId))) throw new ToolError('merchant_consent_not_enabled', 'Attest-only keys are available to organizations enabled for attested consent.');
  }
  const issued = issueApiKey(em, { organizationId: user.organizationId, name: input.name, scopes, createdByUserId: user.userId, now });
  await em.flush();
  return { key: await em.findOneOrFail(ApiKey, { id: issued.id }), issued };
}

/** Revokes a key of the caller's organization (404 otherwise); an integrator only keys it minted (403). */
export async function revokeKey(em: EntityManager, user: ConsoleUser, id: string, now: Date): Promise<ApiKeyRow> {
  const key = await em.findOne(ApiKey, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!key || key.organizationId !== user.organizationId) throw new ToolError('not_found', `No API key ${id}.`, { keyId: id });
  if (user.role === 'integrator' && key.createdByUserId !== user.userId) {
    throw new ToolError('forbidden', 'An integrator may revoke only the keys it minted.', { keyId: id });
  }
  key.revokedAt ??= now;
  await em.flush();
  return key;
}

/** The organization's API keys, newest first, and whether it may hold attest keys. */
export async function listKeys(em: EntityManager, organizationId: string) {
  const enabled = await attestAvailable(em, organizationId);
  const keys = await em.find(ApiKey, { organizationId }, { orderBy: { createdAt: 'desc', id: 'desc' } });
  return { apiKeys: keys.map((k) => apiKeyOut(k, enabled)), attestAvailable: enabled };
}
