/**
 * What an OAuth access token may do: act as the agent a buyer named during authorization, inside the one permission
 * granted there (and undoing that authorization when it did not end in a grant). Checked on every call (never cached):
 * a revoked or expired permission, or a paused or deleted agent, makes the token useless at once.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ToolError } from '../../kernel/errors.ts';
import type { Principal } from '../../kernel/principal.ts';
import type { Database } from '../../storage/database.ts';
import { Agent } from '../../storage/entities/buyer.ts';
import { Instrument, Permission } from '../../storage/entities/buyer-authority.ts';
import { revoke } from './permissions.ts';

/**
 * The principal an access token for `permissionId` acts as, or `unauthenticated` when the permission no longer allows
 * it.
 */
export async function oauthAgentPrincipal(db: Database, permissionId: string, now: Date): Promise<Principal> {
  const [row] = await db.execute<{
    agent_id: string;
    buyer_id: string;
    revoked_at: string | null;
    expires_at: string;
    status: string;
  }>(
    `select p.agent_id, p.buyer_id, p.revoked_at, p.expires_at, a.status
       from permissions p join agents a on a.id = p.agent_id where p.id = ?`,
    [permissionId],
  );
  if (!row || row.revoked_at || new Date(row.expires_at) <= now || row.status !== 'active') {
    throw new ToolError('unauthenticated', 'The access token no longer carries a live permission: authorize again.');
  }
  return { kind: 'agent', agentId: row.agent_id, buyerId: row.buyer_id, permissionId };
}

/** What one OAuth authorization created (`authorize_agent` at the end of the authorize step). */
export interface OAuthAuthorization {
  permissionId: string;
  agentId: string;
  /** The card, when the authorization saved it (a card just entered); a card saved before is left alone. */
  savedInstrumentId?: string | undefined;
}

/**
 * Undoes an authorization that did not end in a grant for the client (the grant could not be recorded): the
 * permission is revoked, the agent deleted and a card saved by it deleted, so no authority is left that no client
 * holds. The consent and the grant are one outcome.
 */
export async function withdrawOAuthAuthorization(
  em: EntityManager,
  created: OAuthAuthorization,
  now: Date,
): Promise<void> {
  const permission = await em.findOne(Permission, { id: created.permissionId });
  if (permission) revoke(permission, now, 'oauth_not_granted', 'system');
  const agent = await em.findOne(Agent, { id: created.agentId });
  if (agent) {
    agent.status = 'deleted';
    agent.updatedAt = now;
  }
  const card = created.savedInstrumentId ? await em.findOne(Instrument, { id: created.savedInstrumentId }) : null;
  if (card && !card.deletedAt) card.deletedAt = now;
  await em.flush();
}
