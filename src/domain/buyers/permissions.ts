/**
 * Permissions: a buyer's spending authority for one agent in one shop — per-purchase cap, rolling
 * allowance over a window, expiry and the saved card to charge. The shop is the session's (`mid`), never
 * the client's. Granting (which replaces the agent's live permission in that shop) and changing the card
 * need an emailed code, or attested consent within the organization's ceilings; revoking never does.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { sql } from '../../storage/database.ts';
import { Agent } from '../../storage/entities/buyer.ts';
import { Instrument, Permission, type PermissionRow } from '../../storage/entities/buyer-authority.ts';
import type { ShopRow } from '../../storage/entities/catalog.ts';
import { refuseBuyerPastCap } from './buyer-caps.ts';
import { liveFirst, MAX_PERMISSIONS_PER_BUYER } from '../limits.ts';
import { Organization } from '../../storage/entities/organization.ts';
import { newId } from '../../storage/ids.ts';
import { iso, isoOrNull } from '../../kernel/wire.ts';
import { chargeableInstrument, permissionStatus } from './agent-purchases.ts';
import { sessionShop } from './card-setups.ts';
import { requireOwnInstrument } from './instruments.ts';
import { buyerOf } from './sessions.ts';
import { spentByAgent } from './spending.ts';
import { requireConsent, spendConsent, type CodeProof, type Consent } from './verification.ts';
import { endDraft } from './consent-drafts.ts';

export interface PermissionLimits {
  perPurchaseCapMinor: number;
  allowanceMinor: number;
  windowHours: number;
  expiresAt: string;
}

/** The wire form, with the agent's name (null once deleted) and what it spent in the current window. */
export async function permissionOut(em: EntityManager, p: PermissionRow, now: Date) {
  const spentMinor = await spentByAgent(em, p.agentId, p.shopId, p.windowHours, now);
  const agent = await em.findOne(Agent, { id: p.agentId });
  return {
    id: p.id,
    agentId: p.agentId,
    agentName: agent && agent.status !== 'deleted' ? agent.name : null,
    merchantId: p.shopId,
    instrumentId: p.instrumentId,
    currency: p.currency,
    perPurchaseCapMinor: p.perPurchaseCapMinor,
    allowanceMinor: p.allowanceMinor,
    windowHours: p.windowHours,
    spentMinor,
    remainingMinor: Math.max(0, p.allowanceMinor - spentMinor),
    expiresAt: iso(p.expiresAt),
    status: permissionStatus(p, now),
    label: p.label ?? null,
    attested: p.attested,
    createdAt: iso(p.createdAt),
    revokedAt: isoOrNull(p.revokedAt),
    revokedReason: p.revokedReason ?? null,
  };
}

/** The limits' end date; refuses an end in the past and a per-purchase cap above the allowance. */
export function checkLimits(limits: PermissionLimits, now: Date): Date {
  const expiresAt = new Date(limits.expiresAt);
  if (expiresAt <= now)
    throw new ToolError('invalid_input', 'expiresAt must be in the future.', { field: 'expiresAt' });
  if (limits.perPurchaseCapMinor > limits.allowanceMinor) {
    throw new ToolError('invalid_input', 'The per-purchase cap cannot exceed the allowance.', {
      field: 'perPurchaseCapMinor',
    });
  }
  return expiresAt;
}

/** Attested consent: the organization must still be enabled, and the limits within its ceilings. */
async function checkAttestedCeilings(em: EntityManager, shop: ShopRow, limits: PermissionLimits): Promise<void> {
  const org = await em.findOneOrFail(Organization, { id: shop.organizationId });
  const ceiling = org.attestCeilingMinor ?? null;
  if (!org.attestationEnabled || ceiling === null || !org.attestWindowHours)
    throw new ToolError('merchant_consent_not_enabled');
  if (
    limits.perPurchaseCapMinor > ceiling ||
    limits.allowanceMinor > ceiling ||
    limits.windowHours < org.attestWindowHours
  ) {
    throw new ToolError('attestation_ceiling_exceeded', undefined, {
      ceilingMinor: ceiling,
      windowHours: org.attestWindowHours,
    });
  }
}

/**
 * Grants `agentId` a permission in the session's shop, charging `instrumentId`. The agent's previous live
 * permission there is revoked (`replaced`); spends are counted per agent and shop, so this never resets
 * what was already spent in the window.
 */
export async function grantPermission(
  ctx: ToolContext,
  input: PermissionLimits & { agentId: string; instrumentId: string } & CodeProof,
): Promise<PermissionRow> {
  const principal = buyerOf(ctx);
  if (!principal.merchantId) throw new ToolError('session_shop_required');
  const now = ctx.clock.now();
  const expiresAt = checkLimits(input, now);
  const consent = await requireConsent(ctx, 'grant_permission', input);
  return ctx.services.db.transaction(async (em) => {
    await spendConsent(em, consent, now);
    const shop = await sessionShop(em, ctx);
    const agent = await em.findOne(Agent, { id: input.agentId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!agent || agent.buyerId !== principal.buyerId || agent.status === 'deleted') {
      throw new ToolError('not_found', `No agent ${input.agentId}.`, { agentId: input.agentId });
    }
    const own = await em.findOne(Instrument, { id: input.instrumentId, buyerId: principal.buyerId, deletedAt: null });
    if (!own) throw new ToolError('instrument_not_found', undefined, { instrumentId: input.instrumentId });
    await chargeableInstrument(em, own.id, shop);
    if (consent.via === 'attested') await checkAttestedCeilings(em, shop, input);
    await endDraft(em, principal.buyerId, shop.id);
    await sql(
      em,
      `update permissions set revoked_at = ?, revoked_reason = 'replaced', revoked_by = 'buyer' where agent_id = ? and shop_id = ? and revoked_at is null`,
      [now, agent.id, shop.id],
    );
    await refuseBuyerPastCap(em, principal.buyerId, 'permissions', now);
    const permission = insertPermission(em, {
      buyerId: principal.buyerId,
      agentId: agent.id,
      shop,
      instrumentId: own.id,
      limits: input,
      expiresAt,
      attested: consent.via === 'attested',
      now,
    });
    await em.flush();
    return permission;
  });
}

/** The new permission's row (unflushed); the caller checked the agent, the card, the limits and the consent. */
export function insertPermission(
  em: EntityManager,
  a: {
    buyerId: string;
    agentId: string;
    shop: ShopRow;
    instrumentId: string;
    limits: PermissionLimits;
    expiresAt: Date;
    attested: boolean;
    now: Date;
  },
): PermissionRow {
  return em.create(Permission, {
    id: newId('permission', a.now),
    buyerId: a.buyerId,
    agentId: a.agentId,
    shopId: a.shop.id,
    organizationId: a.shop.organizationId,
    instrumentId: a.instrumentId,
    currency: a.shop.currency,
    perPurchaseCapMinor: a.limits.perPurchaseCapMinor,
    allowanceMinor: a.limits.allowanceMinor,
    windowHours: a.limits.windowHours,
    expiresAt: a.expiresAt,
    label: a.attested ? `Set up by ${a.shop.name}` : null,
    attested: a.attested,
    createdAt: a.now,
    revokedAt: null,
    revokedReason: null,
    revokedBy: null,
  });
}

/**
 * The permissions the session may see: the buyer's for a full session, the session shop's for a bounded one; every
 * live one (at most MAX_PERMISSIONS_PER_BUYER) and the newest revoked or expired ones up to that many, newest first.
 */
export async function listPermissions(ctx: ToolContext, agentId?: string): Promise<PermissionRow[]> {
  const principal = buyerOf(ctx);
  if (principal.mode === 'bounded' && !principal.merchantId) return [];
  const now = ctx.clock.now();
  const where = {
    buyerId: principal.buyerId,
    ...(principal.mode === 'bounded' ? { shopId: principal.merchantId! } : {}),
    ...(agentId ? { agentId } : {}),
  };
  const max = MAX_PERMISSIONS_PER_BUYER;
  const order = { orderBy: { createdAt: 'desc', id: 'desc' }, limit: max } as const;
  const live = await ctx.em.find(Permission, { ...where, revokedAt: null, expiresAt: { $gt: now } }, order);
  const past =
    live.length < max
      ? await ctx.em.find(
          Permission,
          { ...where, $or: [{ revokedAt: { $ne: null } }, { expiresAt: { $lte: now } }] },
          { ...order, limit: max - live.length },
        )
      : [];
  const rows = liveFirst(live, past, max);
  // Their agents in one read: permissionOut's look-up of each then finds it loaded.
  if (rows.length) await ctx.em.find(Agent, { id: { $in: [...new Set(rows.map((p) => p.agentId))] } });
  return rows;
}

/** The caller's permission, locked; a bounded session reaches only its shop's. Others answer 404. */
export async function requireOwnPermission(
  em: EntityManager,
  ctx: Pick<ToolContext, 'principal'>,
  id: string,
): Promise<PermissionRow> {
  const principal = buyerOf(ctx);
  const p = await em.findOne(Permission, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  const outOfScope = principal.mode === 'bounded' && p?.shopId !== principal.merchantId;
  if (!p || p.buyerId !== principal.buyerId || outOfScope)
    throw new ToolError('not_found', `No permission ${id}.`, { permissionId: id });
  return p;
}

/** Revokes a permission (narrowing: no code, bounded sessions too). Spends stay counted. */
export function revoke(p: PermissionRow, now: Date, reason: string, by: string): void {
  if (p.revokedAt) return;
  p.revokedAt = now;
  p.revokedReason = reason;
  p.revokedBy = by;
}

/** Changes the card an agent's live permission in the session's shop charges (after the emailed code). */
export async function changeAgentCard(
  ctx: ToolContext,
  agentId: string,
  input: { instrumentId: string } & CodeProof,
): Promise<PermissionRow> {
  const principal = buyerOf(ctx);
  if (!principal.merchantId) throw new ToolError('session_shop_required');
  const consent: Consent = await requireConsent(ctx, 'change_agent_card', input);
  const now = ctx.clock.now();
  return ctx.services.db.transaction(async (em) => {
    await spendConsent(em, consent, now);
    const shop = await sessionShop(em, ctx);
    const live = (
      await em.find(
        Permission,
        { agentId, buyerId: principal.buyerId, shopId: shop.id, revokedAt: null },
        { lockMode: LockMode.PESSIMISTIC_WRITE },
      )
    ).filter((p) => permissionStatus(p, now) === 'active');
    if (!live.length)
      throw new ToolError('permission_missing', 'The agent has no live permission in this shop.', { agentId });
    const instrument = await requireOwnInstrument(em, ctx, input.instrumentId);
    await chargeableInstrument(em, instrument.id, shop);
    for (const p of live) p.instrumentId = instrument.id;
    await em.flush();
    return live[0]!;
  });
}
