/**
 * Limit-raise requests: an agent refused for its buyer's limit (`over_purchase_cap`, `allowance_exhausted`) asks the
 * buyer, in-band through MCP URL elicitation, to raise the permission's per-purchase cap or allowance to cover the
 * amount. A request names the buyer, the agent, the permission, the amount and the proposed limits; it lives 15
 * minutes and is answered once: approved (after the same emailed code a grant needs, which raises the permission's
 * limits in place), declined, or expired. A buyer who declined is not asked again for that permission for 15 minutes.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { iso } from '../../kernel/wire.ts';
import { sql } from '../../storage/database.ts';
import { Agent } from '../../storage/entities/buyer.ts';
import { Permission } from '../../storage/entities/buyer-authority.ts';
import { Shop } from '../../storage/entities/catalog.ts';
import { newId } from '../../storage/ids.ts';
import { permissionStatus } from './agent-purchases.ts';
import { checkLimits, requireOwnPermission } from './permissions.ts';
import { buyerOf } from './sessions.ts';
import { spentByAgent } from './spending.ts';
import { requireConsent, spendConsent, type CodeProof } from './verification.ts';

/** How long a request waits for the buyer, and how long a decline keeps the agent from asking again. */
export const LIMIT_RAISE_TTL_MINUTES = 15;
/** The refusals a limit raise can cure (an attested ceiling is the organization's, not the buyer's, to raise). */
export const RAISABLE_CODES = ['over_purchase_cap', 'allowance_exhausted'] as const;
export type RaisableCode = (typeof RAISABLE_CODES)[number];

interface RaiseRow {
  id: string;
  buyer_id: string;
  agent_id: string;
  permission_id: string;
  shop_id: string;
  reason: RaisableCode;
  amount_minor: number;
  currency: string;
  per_purchase_cap_minor: number;
  allowance_minor: number;
  proposed_per_purchase_cap_minor: number;
  proposed_allowance_minor: number;
  status: 'pending' | 'approved' | 'declined' | 'expired';
  /** Times as the driver returns them from raw SQL (a string or a Date): read through `at`. */
  created_at: Date | string;
  expires_at: Date | string;
  decided_at: Date | string | null;
}

const at = (d: Date | string) => new Date(d);
const statusAt = (r: RaiseRow, now: Date) => (r.status === 'pending' && at(r.expires_at) <= now ? 'expired' : r.status);

/** The buyer page where the buyer answers a request. */
export const limitRaiseUrl = (publicUrl: string, id: string) => `${publicUrl}/buyer/limit-raise?request=${id}`;

/** What the agent is told: the request, where the buyer answers it, and what it asks for. */
export function limitRaiseForAgent(ctx: ToolContext, r: RaiseRow, now: Date) {
  return {
    id: r.id,
    status: statusAt(r, now),
    url: limitRaiseUrl(ctx.services.publicUrl(), r.id),
    expiresAt: iso(at(r.expires_at)),
    permissionId: r.permission_id,
    amountMinor: r.amount_minor,
    currency: r.currency,
    proposedPerPurchaseCapMinor: r.proposed_per_purchase_cap_minor,
    proposedAllowanceMinor: r.proposed_allowance_minor,
  };
}

/**
 * An agent asks its buyer to raise the permission `permissionId` so that a purchase of `amountMinor` fits. Reuses a
 * pending request that already covers the amount; answers `declined` (creating nothing) when the buyer declined one
 * for this permission in the last 15 minutes. Another agent's permission, or one outside an OAuth token's, is 404.
 */
export async function requestLimitRaise(
  ctx: ToolContext,
  input: { permissionId: string; amountMinor: number },
): Promise<RaiseRow> {
  const { principal, em } = ctx;
  if (principal.kind !== 'agent') throw new ToolError('forbidden');
  const now = ctx.clock.now();
  const p = await em.findOne(Permission, { id: input.permissionId });
  const outside = principal.permissionId !== undefined && principal.permissionId !== input.permissionId;
  if (!p || p.agentId !== principal.agentId || outside)
    throw new ToolError('not_found', `No permission ${input.permissionId}.`, { permissionId: input.permissionId });
  if (permissionStatus(p, now) !== 'active')
    throw new ToolError(permissionStatus(p, now) === 'revoked' ? 'permission_revoked' : 'permission_expired');
  const spent = await spentByAgent(em, p.agentId, p.shopId, p.windowHours, now);
  const cap = Math.max(p.perPurchaseCapMinor, input.amountMinor);
  const allowance = Math.max(p.allowanceMinor, spent + input.amountMinor, cap);
  if (cap === p.perPurchaseCapMinor && allowance === p.allowanceMinor)
    throw new ToolError('invalid_input', 'The permission’s limits already cover this amount.', {
      field: 'amountMinor',
    });
  await sql(
    em,
    `update limit_raise_requests set status = 'expired' where permission_id = ? and status = 'pending' and expires_at <= ?`,
    [p.id, now],
  );
  const recent = await sql<RaiseRow>(
    em,
    `select * from limit_raise_requests where permission_id = ? and created_at > ? order by created_at desc, id desc`,
    [p.id, new Date(now.getTime() - LIMIT_RAISE_TTL_MINUTES * 60_000)],
  );
  const declined = recent.find((r) => r.status === 'declined');
  if (declined) return declined;
  const covering = recent.find(
    (r) =>
      r.status === 'pending' && r.proposed_per_purchase_cap_minor >= cap && r.proposed_allowance_minor >= allowance,
  );
  if (covering) return covering;
  const [row] = await sql<RaiseRow>(
    em,
    `insert into limit_raise_requests (id, buyer_id, agent_id, permission_id, shop_id, reason, amount_minor, currency,
       per_purchase_cap_minor, allowance_minor, proposed_per_purchase_cap_minor, proposed_allowance_minor, status,
       created_at, expires_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?) returning *`,
    [
      newId('limitRaise', now),
      p.buyerId,
      p.agentId,
      p.id,
      p.shopId,
      input.amountMinor > p.perPurchaseCapMinor ? 'over_purchase_cap' : 'allowance_exhausted',
      input.amountMinor,
      p.currency,
      p.perPurchaseCapMinor,
      p.allowanceMinor,
      cap,
      allowance,
      now,
      new Date(now.getTime() + LIMIT_RAISE_TTL_MINUTES * 60_000),
    ],
  );
  return row!;
}

/** The caller's own request, locked when `lock`; another buyer's (or another shop's, for a bounded session) is 404. */
async function ownRequest(em: EntityManager, ctx: Pick<ToolContext, 'principal'>, id: string, lock: boolean) {
  const principal = buyerOf(ctx);
  const [r] = await sql<RaiseRow>(em, `select * from limit_raise_requests where id = ?${lock ? ' for update' : ''}`, [
    id,
  ]);
  const outOfScope = principal.mode === 'bounded' && r?.shop_id !== principal.merchantId;
  if (!r || r.buyer_id !== principal.buyerId || outOfScope)
    throw new ToolError('not_found', `No limit-raise request ${id}.`, { requestId: id });
  return r;
}

/** What the buyer page shows: who asks, for what, the limits now and proposed, and whether it is still open. */
export async function limitRaiseOut(em: EntityManager, r: RaiseRow, now: Date) {
  const agent = await em.findOne(Agent, { id: r.agent_id });
  const shop = await em.findOne(Shop, { id: r.shop_id });
  return {
    id: r.id,
    status: statusAt(r, now),
    agentId: r.agent_id,
    agentName: agent && agent.status !== 'deleted' ? agent.name : null,
    permissionId: r.permission_id,
    merchantId: r.shop_id,
    shopName: shop?.name ?? null,
    reason: r.reason,
    amountMinor: r.amount_minor,
    currency: r.currency,
    perPurchaseCapMinor: r.per_purchase_cap_minor,
    allowanceMinor: r.allowance_minor,
    proposedPerPurchaseCapMinor: r.proposed_per_purchase_cap_minor,
    proposedAllowanceMinor: r.proposed_allowance_minor,
    createdAt: iso(at(r.created_at)),
    expiresAt: iso(at(r.expires_at)),
    decidedAt: r.decided_at ? iso(at(r.decided_at)) : null,
  };
}

/** The buyer reads one of their requests. */
export async function getLimitRaise(ctx: ToolContext, id: string): Promise<RaiseRow> {
  return ownRequest(ctx.em, ctx, id, false);
}

const refuseClosed = (r: RaiseRow, now: Date) => {
  const status = statusAt(r, now);
  if (status !== 'pending')
    throw new ToolError('limit_raise_closed', undefined, {
      requestId: r.id,
      status,
      decidedAt: r.decided_at ? iso(at(r.decided_at)) : null,
    });
};

/**
 * The buyer approves: after the emailed code (purpose `grant_permission`, as for any widening of an agent's
 * authority), the permission's limits become at least the proposed ones (checked by `checkLimits`, the grant's rule),
 * in place, so an OAuth token bound to the permission keeps working; the request is answered once.
 */
export async function approveLimitRaise(ctx: ToolContext, id: string, proof: CodeProof): Promise<RaiseRow> {
  const consent = await requireConsent(ctx, 'grant_permission', proof);
  const now = ctx.clock.now();
  return ctx.services.db.transaction(async (em) => {
    const r = await ownRequest(em, ctx, id, true);
    refuseClosed(r, now);
    await spendConsent(em, consent, now);
    const p = await requireOwnPermission(em, ctx, r.permission_id);
    if (permissionStatus(p, now) !== 'active')
      throw new ToolError(permissionStatus(p, now) === 'revoked' ? 'permission_revoked' : 'permission_expired');
    const limits = {
      perPurchaseCapMinor: Math.max(p.perPurchaseCapMinor, r.proposed_per_purchase_cap_minor),
      allowanceMinor: Math.max(p.allowanceMinor, r.proposed_allowance_minor),
      windowHours: p.windowHours,
      expiresAt: iso(p.expiresAt),
    };
    checkLimits(limits, now);
    p.perPurchaseCapMinor = limits.perPurchaseCapMinor;
    p.allowanceMinor = limits.allowanceMinor;
    await em.flush();
    return decide(em, r.id, 'approved', now);
  });
}

/** The buyer declines (narrowing: no code). */
export async function declineLimitRaise(ctx: ToolContext, id: string): Promise<RaiseRow> {
  const now = ctx.clock.now();
  const r = await ownRequest(ctx.em, ctx, id, true);
  refuseClosed(r, now);
  return decide(ctx.em, r.id, 'declined', now);
}

async function decide(em: EntityManager, id: string, status: 'approved' | 'declined', now: Date): Promise<RaiseRow> {
  const [row] = await sql<RaiseRow>(
    em,
    `update limit_raise_requests set status = ?, decided_at = ? where id = ? returning *`,
    [status, now, id],
  );
  return row!;
}
