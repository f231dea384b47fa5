/**
 * Agents a buyer created (the service issues a `tag_…` token, shown once, stored hashed) or brought (a
 * public JWK it proves with short-lived JWTs). Listing, pausing, resuming and deleting them; only
 * active agents authenticate.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AGENT_TOKEN_PREFIX, hashToken } from '../../kernel/tokens.ts';
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { sql } from '../../storage/database.ts';
import { Agent, type AgentRow } from '../../storage/entities/buyer.ts';
import { refuseBuyerPastCap } from './buyer-caps.ts';
import { newId } from '../../storage/ids.ts';
import { isoOrNull } from '../../kernel/wire.ts';
import { assertUsablePublicKey, newAgentToken, type AgentJwk } from './agent-credentials.ts';
import { buyerOf } from './sessions.ts';
import { requireConsent, spendConsent, type CodeProof } from './verification.ts';

export function agentOut(a: AgentRow) {
  return {
    id: a.id,
    name: a.name,
    credential: a.credential as 'issued' | 'key',
    tokenPrefix: a.tokenPrefix ?? null,
    publicKeyJwk: (a.publicJwk as Record<string, string> | null | undefined) ?? null,
    status: a.status as 'active' | 'paused' | 'deleted',
    createdAt: isoOrNull(a.createdAt)!,
    updatedAt: isoOrNull(a.updatedAt)!,
  };
}

/** Creates an agent after the emailed code; returns the issued token once (brought agents get none). */
export async function createAgent(
  ctx: ToolContext,
  input: { name: string; publicKeyJwk?: AgentJwk | undefined } & CodeProof,
): Promise<{ agent: ReturnType<typeof agentOut>; token: string | null }> {
  const principal = buyerOf(ctx);
  if (input.publicKeyJwk) await assertUsablePublicKey(input.publicKeyJwk);
  const consent = await requireConsent(ctx, 'create_agent', input);
  const now = ctx.clock.now();
  const { agent, token } = await ctx.services.db.transaction(async (em) => {
    await spendConsent(em, consent, now);
    await refuseBuyerPastCap(em, principal.buyerId, 'agents', now);
    const created = insertAgent(em, principal.buyerId, input, now);
    await em.flush();
    return created;
  });
  return { agent: agentOut(agent), token };
}

/**
 * The new agent's row (unflushed) and its issued token (null when it brings its own key); the caller spent the consent.
 */
export function insertAgent(
  em: EntityManager,
  buyerId: string,
  input: { name: string; publicKeyJwk?: AgentJwk | undefined },
  now: Date,
): { agent: AgentRow; token: string | null } {
  const token = input.publicKeyJwk ? null : newAgentToken(AGENT_TOKEN_PREFIX);
  const agent = em.create(Agent, {
    id: newId('agent', now),
    buyerId,
    name: input.name,
    credential: token ? 'issued' : 'key',
    tokenHash: token ? hashToken(token) : null,
    tokenPrefix: token ? token.slice(0, 10) : null,
    publicJwk: input.publicKeyJwk ? { ...input.publicKeyJwk } : null,
    status: 'active',
    createdAt: now,
    updatedAt: now,
  });
  return { agent, token };
}

/**
 * The buyer's agents. A session for a shop that is bounded (minted by the merchant) sees only the agents
 * holding a permission in that shop; a full session sees all of the buyer's agents.
 */
export async function listAgents(ctx: ToolContext): Promise<AgentRow[]> {
  const principal = buyerOf(ctx);
  const agents = await ctx.em.find(
    Agent,
    { buyerId: principal.buyerId, status: { $ne: 'deleted' } },
    { orderBy: { createdAt: 'asc', id: 'asc' } },
  );
  if (principal.mode === 'full') return agents;
  if (!principal.merchantId) return [];
  const rows = await sql<{ agent_id: string }>(
    ctx.em,
    'select distinct agent_id from permissions where buyer_id = ? and shop_id = ?',
    [principal.buyerId, principal.merchantId],
  );
  const visible = new Set(rows.map((r) => r.agent_id));
  return agents.filter((a) => visible.has(a.id));
}

/** The caller's live agent, locked for an update; another buyer's answers 404. */
export async function requireOwnAgent(
  em: EntityManager,
  ctx: Pick<ToolContext, 'principal'>,
  id: string,
): Promise<AgentRow> {
  const principal = buyerOf(ctx);
  const agent = await em.findOne(Agent, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!agent || agent.buyerId !== principal.buyerId || agent.status === 'deleted')
    throw new ToolError('not_found', `No agent ${id}.`, { agentId: id });
  return agent;
}

/**
 * Pause (credentials refused, purchases refused with agent_paused), resume, or delete (credentials
 * refused for good; its live permissions are revoked). Repeating a transition is harmless.
 */
export async function setAgentStatus(
  ctx: ToolContext,
  id: string,
  action: 'pause' | 'resume' | 'delete',
): Promise<AgentRow> {
  const { em } = ctx;
  const now = ctx.clock.now();
  const agent = await requireOwnAgent(em, ctx, id);
  agent.status = action === 'pause' ? 'paused' : action === 'resume' ? 'active' : 'deleted';
  agent.updatedAt = now;
  if (action === 'delete') {
    await sql(
      em,
      `update permissions set revoked_at = ?, revoked_reason = 'agent_deleted', revoked_by = 'buyer' where agent_id = ? and revoked_at is null`,
      [now, agent.id],
    );
  }
  await em.flush();
  return agent;
}
