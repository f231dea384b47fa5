/**
 * What an OAuth access token may do: act as the agent a buyer named during authorization, inside the one
 * permission granted there. Checked on every call (never cached): a revoked or expired permission, or a paused
 * or deleted agent, makes the token useless at once.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ToolError } from '../../kernel/errors.ts';
import type { Principal } from '../../kernel/principal.ts';
import type { Database } from '../../storage/database.ts';
import { Agent } from '../../storage/entities/buyer.ts';
import { Permission } from '../../storage/entities/buyer-authority.ts';
import { permissionStatus } from './agent-purchases.ts';
import { buyerOf } from './sessions.ts';
import type { ToolContext } from '../context.ts';

/** The principal an access token for `permissionId` acts as, or `unauthenticated` when the permission no longer allows it. */
export async function oauthAgentPrincipal(db: Database, permissionId: string, now: Date): Promise<Principal> {
  const [row] = await db.execute<{ agent_id: string; buyer_id: string; revoked_at: string | null; expires_at: string; status: string }>(
    `select p.agent_id, p.buyer_id, p.revoked_at, p.expires_at, a.status
       from permissions p join agents a on a.id = p.agent_id where p.id = ?`,
    [permissionId],
  );
  if (!row || row.revoked_at || new Date(row.expires_at) <= now || row.status !== 'active') {
    throw new ToolError('unauthenticated', 'The access token no longer carries a live permission: authorize again.');
  }
  return { kind: 'agent', agentId: row.agent_id, buyerId: row.buyer_id, permissionId };
}

/**
 * The permission a buyer hands to an OAuth client at the end of authorization: the caller's own, active, for an
 * active agent. Another buyer's answers 404.
 */
export async function permissionForClient(em: EntityManager, ctx: Pick<ToolContext, 'principal' | 'clock'>, permissionId: string): Promise<{ permissionId: string; agentId: string }> {
  const principal = buyerOf(ctx);
  if (principal.mode !== 'full') throw new ToolError('forbidden', 'Only a buyer signed in by e-mail may authorize an agent.', { sessionMode: principal.mode });
  const p = await em.findOne(Permission, { id: permissionId });
  if (!p || p.buyerId !== principal.buyerId) throw new ToolError('not_found', `No permission ${permissionId}.`, { permissionId });
  const status = permissionStatus(p, ctx.clock.now());
  if (status === 'revoked') throw new ToolError('permission_revoked', undefined, { permissionId });
  if (status === 'expired') throw new ToolError('permission_expired', undefined, { permissionId });
  const agent = await em.findOne(Agent, { id: p.agentId });
  if (!agent || agent.status !== 'active') throw new ToolError('agent_paused', undefined, { agentId: p.agentId });
  return { permissionId: p.id, agentId: p.agentId };
}
