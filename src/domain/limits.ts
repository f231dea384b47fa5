/** The fixed caps on what grows with use (issue #36): each far above what a real merchant or buyer reaches. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ToolError } from '../kernel/errors.ts';
import { sql } from '../storage/database.ts';

/** Tiers of one event, retired ones included (tiers are never deleted). */
export const MAX_TIERS_PER_EVENT = 200;
/** Pools tied to one event. */
export const MAX_POOLS_PER_EVENT = 100;
/** A buyer's agents that are not deleted. */
export const MAX_AGENTS_PER_BUYER = 200;
/** A buyer's saved cards that are not removed. */
export const MAX_CARDS_PER_BUYER = 100;
/** A buyer's live permissions (not revoked, not expired); the list shows at most this many, live ones first. */
export const MAX_PERMISSIONS_PER_BUYER = 500;
/** An organization's live API keys (not revoked); the list shows at most this many, live ones first. */
export const MAX_API_KEYS_PER_ORGANIZATION = 500;
/** An organization's members. */
export const MAX_MEMBERS_PER_ORGANIZATION = 1000;
/** An organization's open invitations (not accepted, revoked or expired); the team list shows the newest this many. */
export const MAX_OPEN_INVITATIONS = 100;
/** The organizations one console user belongs to. */
export const MAX_ORGANIZATIONS_PER_USER = 100;
/** Payment attempts on one reservation (a declined card may be tried again while the hold lasts). */
export const MAX_PAYMENT_ATTEMPTS = 20;
/** Ticket-signing keys kept (the active one and every retired one, so older codes still verify). */
export const MAX_TICKET_KEYS = 100;
/** Resends of one order's tickets e-mail in all (besides RESENDS_PER_HOUR in any hour). */
export const MAX_RESENDS_PER_ORDER = 50;

/**
 * Refuses with `limit_reached` when `count` already is `limit`: `what` names the cap (e.g. `tiers_per_event`) in the
 * details, with the limit, so a caller can tell which one it met.
 */
export function refuseAtLimit(count: number, limit: number, what: string, details: Record<string, unknown> = {}) {
  if (count < limit) return;
  throw new ToolError('limit_reached', `At most ${limit} ${what.replaceAll('_', ' ')}.`, { limit, what, ...details });
}

/**
 * Serializes the capped creates under each of `parents` (an event, a buyer, an organization, a user) until the
 * caller's transaction ends: one create counts while the others wait, so concurrent creates cannot all count below
 * the cap and all insert. Transaction-scoped advisory locks, taken in one order, so two callers never deadlock.
 */
export async function lockCaps(em: EntityManager, ...parents: string[]): Promise<void> {
  for (const parent of [...new Set(parents)].sort()) {
    await sql(em, 'select pg_advisory_xact_lock(hashtextextended(?, 0))', [`cap ${parent}`]);
  }
}

/**
 * A capped list that keeps every live row: `live` (at most `limit`), then the newest of `past` to fill `limit`, newest
 * first by `createdAt` and id, as the uncapped list was ordered.
 */
export function liveFirst<T extends { id: string; createdAt: Date }>(live: T[], past: T[], limit: number): T[] {
  const kept = [...live.slice(0, limit), ...past.slice(0, Math.max(0, limit - live.length))];
  return kept.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}
