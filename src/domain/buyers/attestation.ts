/**
 * Attested consent: staff enable an organization under contract and set its per-buyer ceiling over a
 * rolling window; only then may its `mandates:attest` key mint attested buyer sessions, under which a
 * permission is granted without the emailed code, within the ceilings, labelled "Set up by <shop>".
 * Owners withdraw such permissions with a reason; spends stay counted (the allowance is not replenished).
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import type { Principal } from '../../kernel/principal.ts';
import { sql } from '../../storage/database.ts';
import { ApiKey } from '../../storage/entities/api-key.ts';
import { Permission, type PermissionRow } from '../../storage/entities/buyer-authority.ts';
import { Organization, type OrganizationRow } from '../../storage/entities/organization.ts';
import { isoOrNull } from '../../kernel/wire.ts';
import { permissionStatus } from './agent-purchases.ts';
import { revoke } from './permissions.ts';
import { attestedSpendByBuyer } from './spending.ts';

/** A buyer is "near the ceiling" once this share of it is spent in the window. */
export const NEAR_CEILING_SHARE = 0.8;

export function attestationOut(org: OrganizationRow) {
  return {
    organizationId: org.id,
    enabled: org.attestationEnabled,
    perBuyerCeilingMinor: org.attestCeilingMinor ?? null,
    windowHours: org.attestWindowHours ?? null,
  };
}

/** Staff switch attestation on (with both ceilings) or off (the ceilings are kept for a later switch-on). */
export async function setAttestation(
  em: EntityManager,
  organizationId: string,
  input: { enabled: boolean; perBuyerCeilingMinor?: number | undefined; windowHours?: number | undefined },
): Promise<OrganizationRow> {
  const org = await em.findOne(Organization, { id: organizationId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!org) throw new ToolError('not_found', `No organization ${organizationId}.`, { organizationId });
  if (input.perBuyerCeilingMinor !== undefined) org.attestCeilingMinor = input.perBuyerCeilingMinor;
  if (input.windowHours !== undefined) org.attestWindowHours = input.windowHours;
  if (input.enabled && (org.attestCeilingMinor == null || !org.attestWindowHours)) {
    throw new ToolError('invalid_input', 'Enabling attestation needs perBuyerCeilingMinor and windowHours.', {
      fields: ['perBuyerCeilingMinor', 'windowHours'],
    });
  }
  org.attestationEnabled = input.enabled;
  await em.flush();
  return org;
}

/**
 * Whether this API key may mint with `merchantAttested: true`: its organization is enabled and the key
 * holds `mandates:attest`. Everyone else: 403 merchant_consent_not_enabled.
 */
export async function requireAttestingKey(em: EntityManager, principal: Principal): Promise<void> {
  if (principal.kind !== 'api_key' || !principal.scopes.includes('mandates:attest')) {
    throw new ToolError('merchant_consent_not_enabled', 'Attested minting needs an API key holding mandates:attest.');
  }
  const org = await em.findOne(Organization, { id: principal.organizationId });
  if (!org?.attestationEnabled) throw new ToolError('merchant_consent_not_enabled');
}

/** An owner withdraws a permission that attestation created, in their organization; spends stay counted. */
export async function withdrawAttestedPermission(ctx: ToolContext, id: string, reason: string): Promise<PermissionRow> {
  const { em, principal } = ctx;
  if (principal.kind !== 'console_user') throw new ToolError('forbidden');
  const p = await em.findOne(Permission, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!p || !p.attested || p.organizationId !== principal.organizationId)
    throw new ToolError('not_found', `No attested permission ${id}.`, { permissionId: id });
  revoke(p, ctx.clock.now(), reason, `user:${principal.userId}`);
  await em.flush();
  return p;
}

/** How many of the latest attested permissions the console's summary shows. */
export const RECENT_ATTESTED_PERMISSIONS = 20;

/** The console's attested-consent summary for the caller's organization (spec §2.3). */
export async function attestedConsentSummary(ctx: ToolContext) {
  const { em, principal } = ctx;
  if (principal.kind !== 'console_user') throw new ToolError('forbidden');
  const now = ctx.clock.now();
  const org = await em.findOneOrFail(Organization, { id: principal.organizationId });
  const keys = await em.find(ApiKey, { organizationId: org.id, revokedAt: null }, { orderBy: { createdAt: 'asc' } });
  const attestKeys = keys
    .filter((k) => k.scopes.includes('mandates:attest'))
    .map((k) => ({
      id: k.id,
      name: k.name,
      tokenPrefix: k.tokenPrefix,
      state: org.attestationEnabled ? ('active' as const) : ('attestation_disabled' as const),
      lastUsedAt: isoOrNull(k.lastUsedAt),
    }));
  const counts = await sql<{ active: string; expired: string; revoked: string; total: string }>(
    em,
    `select count(*) filter (where revoked_at is null and expires_at > ?) as active,
            count(*) filter (where revoked_at is null and expires_at <= ?) as expired,
            count(*) filter (where revoked_at is not null) as revoked, count(*) as total
       from permissions where organization_id = ? and attested`,
    [now, now, org.id],
  );
  const c = counts[0]!;
  const ceiling = org.attestCeilingMinor ?? null;
  const spends =
    ceiling !== null && org.attestWindowHours ? await attestedSpendByBuyer(em, org.id, org.attestWindowHours, now) : [];
  const recent = await em.find(
    Permission,
    { organizationId: org.id, attested: true },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit: RECENT_ATTESTED_PERMISSIONS },
  );
  return {
    ...attestationOut(org),
    attestKeys,
    permissionCounts: {
      active: Number(c.active),
      expired: Number(c.expired),
      revoked: Number(c.revoked),
      total: Number(c.total),
    },
    buyersNearCeiling: spends
      .filter((s) => ceiling !== null && s.spentMinor >= ceiling * NEAR_CEILING_SHARE)
      .map((s) => ({ ...s, ceilingMinor: ceiling!, remainingMinor: Math.max(0, ceiling! - s.spentMinor) })),
    recentPermissions: recent.map((p) => ({
      id: p.id,
      label: p.label ?? null,
      buyerId: p.buyerId,
      agentId: p.agentId,
      merchantId: p.shopId,
      allowanceMinor: p.allowanceMinor,
      perPurchaseCapMinor: p.perPurchaseCapMinor,
      currency: p.currency,
      status: permissionStatus(p, now),
      createdAt: isoOrNull(p.createdAt)!,
      revokedAt: isoOrNull(p.revokedAt),
      revokedReason: p.revokedReason ?? null,
    })),
  };
}
