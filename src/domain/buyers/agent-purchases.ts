/**
 * The agent permission rules, applied at every purchase step (quote, reserve, pay): an agent buys only
 * inside an active permission its buyer granted — the right shop, within the per-purchase cap and the
 * card's cap, within the rolling allowance (and, for attested permissions, the organization's per-buyer
 * ceiling), not expired, not revoked. At `pay` the permission row is locked FOR UPDATE and the spend is
 * recorded in the same transaction, so two racing purchases can never jointly exceed the allowance.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ToolError } from '../../kernel/errors.ts';
import { sql } from '../../storage/database.ts';
import { Agent } from '../../storage/entities/buyer.ts';
import {
  Instrument,
  Permission,
  type InstrumentRow,
  type PermissionRow,
} from '../../storage/entities/buyer-authority.ts';
import type { ShopRow } from '../../storage/entities/catalog.ts';
import { Organization } from '../../storage/entities/organization.ts';
import { shopNotFound } from '../catalog/access.ts';
import { recordSpend, spentByAgent, spentUnderAttestation } from './spending.ts';

/** Every code the agent rules may answer (for the errors lists of quote, reserve and confirm). */
export const AGENT_PURCHASE_ERRORS = [
  'agent_paused',
  'permission_missing',
  'permission_wrong_shop',
  'permission_expired',
  'permission_revoked',
  'over_purchase_cap',
  'over_card_cap',
  'allowance_exhausted',
  'instrument_provider_mismatch',
] as const;

export interface AgentPurchase {
  agentId: string;
  /** The one permission the caller acts in (an OAuth access token's); unset: the agent's permission in the shop. */
  permissionId?: string | undefined;
  shop: ShopRow;
  amountMinor: number;
  currency: string;
  stage: 'quote' | 'reserve' | 'pay';
  /** At `pay`: the reservation being paid (its spend is recorded) and the method about to be charged. */
  reservationId?: string | undefined;
  paymentMethod?: string | undefined;
}

/** Whether a permission is in force now. */
export function permissionStatus(p: PermissionRow, now: Date): 'active' | 'expired' | 'revoked' {
  if (p.revokedAt) return 'revoked';
  return p.expiresAt <= now ? 'expired' : 'active';
}

/**
 * The permission governing this agent in this shop: the active one if any, else the latest (which then
 * explains the refusal). Refusal codes: permission_missing, permission_wrong_shop, permission_revoked,
 * permission_expired.
 */
async function governingPermission(
  em: EntityManager,
  agentId: string,
  shop: ShopRow,
  now: Date,
  lock: boolean,
  only?: string,
): Promise<PermissionRow> {
  const all = await em.find(
    Permission,
    { agentId, ...(only ? { id: only } : {}) },
    { orderBy: { createdAt: 'desc', id: 'desc' } },
  );
  const here = all.filter((p) => p.shopId === shop.id);
  if (!here.length) {
    // A permission elsewhere: a shop the agent may not see answers the same 404 as a missing one (it names no shop).
    if (all.length && !shop.discoverable) throw shopNotFound(shop.id);
    if (all.length) throw new ToolError('permission_wrong_shop', undefined, { merchantId: shop.id });
    throw new ToolError('permission_missing');
  }
  const chosen = here.find((p) => permissionStatus(p, now) === 'active') ?? here[0]!;
  const locked = lock
    ? await em.findOneOrFail(Permission, { id: chosen.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true })
    : chosen;
  const status = permissionStatus(locked, now);
  if (status === 'revoked')
    throw new ToolError('permission_revoked', undefined, { permissionId: locked.id, reason: locked.revokedReason });
  if (status === 'expired')
    throw new ToolError('permission_expired', undefined, {
      permissionId: locked.id,
      expiredAt: locked.expiresAt.toISOString(),
    });
  return locked;
}

/** The saved card a permission charges; it must belong to the purchase's shop and payment connection. */
export async function chargeableInstrument(
  em: EntityManager,
  instrumentId: string,
  shop: ShopRow,
): Promise<InstrumentRow> {
  const instrument = await em.findOne(Instrument, { id: instrumentId, deletedAt: null });
  if (!instrument) throw new ToolError('instrument_not_found', undefined, { instrumentId });
  if (instrument.shopId !== shop.id || instrument.provider !== shop.paymentProvider) {
    throw new ToolError('instrument_provider_mismatch', undefined, { instrumentId, merchantId: shop.id });
  }
  return instrument;
}

/** Refuses `amountMinor` above the card's spending cap. */
export function checkCardCap(instrument: InstrumentRow, amountMinor: number): void {
  if (amountMinor > instrument.spendingCapMinor) {
    throw new ToolError('over_card_cap', undefined, {
      instrumentId: instrument.id,
      spendingCapMinor: instrument.spendingCapMinor,
      amountMinor,
    });
  }
}

async function checkAllowance(
  em: EntityManager,
  p: PermissionRow,
  amountMinor: number,
  now: Date,
  lock: boolean,
): Promise<void> {
  const spent = await spentByAgent(em, p.agentId, p.shopId, p.windowHours, now);
  if (spent + amountMinor > p.allowanceMinor) {
    throw new ToolError('allowance_exhausted', undefined, {
      permissionId: p.id,
      allowanceMinor: p.allowanceMinor,
      windowHours: p.windowHours,
      spentMinor: spent,
      remainingMinor: Math.max(0, p.allowanceMinor - spent),
      amountMinor,
    });
  }
  if (!p.attested) return;
  // Serialises one buyer's attested spends across the organization's permissions (lock order: agent, permission,
  // buyer).
  if (lock) await sql(em, 'select id from buyers where id = ? for update', [p.buyerId]);
  const org = await em.findOneOrFail(Organization, { id: p.organizationId });
  if (org.attestCeilingMinor === null || org.attestCeilingMinor === undefined || !org.attestWindowHours) return;
  const attested = await spentUnderAttestation(em, p.organizationId, p.buyerId, org.attestWindowHours, now);
  if (attested + amountMinor > org.attestCeilingMinor) {
    throw new ToolError(
      'allowance_exhausted',
      'The per-buyer ceiling for attested consent does not cover this amount.',
      {
        permissionId: p.id,
        scope: 'attested_ceiling',
        ceilingMinor: org.attestCeilingMinor,
        windowHours: org.attestWindowHours,
        spentMinor: attested,
      },
    );
  }
}

/**
 * Applies the rules for one agent purchase step; at `pay` also records the spend. Returns the permission
 * and the saved card it charges.
 */
export async function authorizeAgentPurchase(
  em: EntityManager,
  req: AgentPurchase,
  now: Date,
): Promise<{ permission: PermissionRow; instrument: InstrumentRow }> {
  const paying = req.stage === 'pay';
  const agent = await em.findOne(Agent, { id: req.agentId }, paying ? { lockMode: LockMode.PESSIMISTIC_READ } : {});
  if (!agent || agent.status === 'deleted') throw new ToolError('unauthenticated', 'The agent was deleted.');
  if (agent.status === 'paused') throw new ToolError('agent_paused', undefined, { agentId: agent.id });
  const permission = await governingPermission(em, agent.id, req.shop, now, paying, req.permissionId);
  if (req.currency !== permission.currency) {
    throw new ToolError('permission_wrong_shop', 'The permission is for purchases in another currency.', {
      currency: permission.currency,
    });
  }
  if (req.amountMinor > permission.perPurchaseCapMinor) {
    throw new ToolError('over_purchase_cap', undefined, {
      permissionId: permission.id,
      perPurchaseCapMinor: permission.perPurchaseCapMinor,
      amountMinor: req.amountMinor,
    });
  }
  const instrument = await chargeableInstrument(em, permission.instrumentId, req.shop);
  checkCardCap(instrument, req.amountMinor);
  await checkAllowance(em, permission, req.amountMinor, now, paying);
  if (paying) {
    if (!req.reservationId) throw new Error('an agent payment must name its reservation');
    if (req.paymentMethod !== undefined && req.paymentMethod !== instrument.paymentMethod) {
      throw new ToolError('invalid_input', 'An agent pays only with the saved card its permission names.', {
        field: 'paymentMethod',
      });
    }
    await recordSpend(em, permission, req.reservationId, req.amountMinor, now);
  }
  return { permission, instrument };
}
