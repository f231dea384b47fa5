/** A buyer's caps (src/domain/limits.ts), checked before a new agent, saved card or permission is written. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../storage/database.ts';
import {
  lockCaps,
  MAX_AGENTS_PER_BUYER,
  MAX_CARDS_PER_BUYER,
  MAX_PERMISSIONS_PER_BUYER,
  refuseAtLimit,
} from '../limits.ts';

const CAPS = {
  agents: { limit: MAX_AGENTS_PER_BUYER, what: 'agents_per_buyer', from: `agents where status <> 'deleted'` },
  cards: { limit: MAX_CARDS_PER_BUYER, what: 'cards_per_buyer', from: 'instruments where deleted_at is null' },
  permissions: {
    limit: MAX_PERMISSIONS_PER_BUYER,
    what: 'live_permissions_per_buyer',
    from: 'permissions where revoked_at is null and expires_at > ?',
  },
} as const;

/**
 * Refuses (`limit_reached`) one more of `kind` for `buyerId` when the buyer already has the most allowed: agents not
 * deleted, cards not removed, or permissions neither revoked nor expired at `now`.
 */
export async function refuseBuyerPastCap(
  em: EntityManager,
  buyerId: string,
  kind: keyof typeof CAPS,
  now: Date,
): Promise<void> {
  const cap = CAPS[kind];
  await lockCaps(em, buyerId);
  const [row] = await sql<{ n: number }>(
    em,
    `select count(*)::int as n from ${cap.from} and buyer_id = ?`,
    kind === 'permissions' ? [now, buyerId] : [buyerId],
  );
  refuseAtLimit(row?.n ?? 0, cap.limit, cap.what);
}
