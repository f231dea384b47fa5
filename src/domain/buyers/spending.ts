/**
 * Spends under permissions. A spend is recorded per reservation when an agent pays, in the transaction
 * that records the payment; it counts against the rolling allowance while that reservation has a payment
 * that did not fail (a failed payment releases its spend; a retry records it again). Revoking or
 * withdrawing a permission never deletes spends, so it never replenishes an allowance.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../storage/database.ts';
import { newId } from '../../storage/ids.ts';
import type { PermissionRow } from '../../storage/entities/buyer-authority.ts';

/** The spend's reservation still has a payment in flight or done (not failed). */
const LIVE = `(exists (select 1 from payments p where p.reservation_id = s.reservation_id and p.state = 'pending')
  or exists (select 1 from payments p where p.reservation_id = s.reservation_id and p.state in ('succeeded', 'refunded')))`;

const windowStart = (now: Date, hours: number) => new Date(now.getTime() - hours * 3_600_000);

/** What an agent spent in a shop during the last `windowHours` (across all its permissions there). */
export async function spentByAgent(
  em: EntityManager,
  agentId: string,
  shopId: string,
  windowHours: number,
  now: Date,
): Promise<number> {
  const [row] = await sql<{ total: string | null }>(
    em,
    `select sum(s.amount_minor) as total from permission_spends s
      where s.agent_id = ? and s.shop_id = ? and s.created_at > ? and ${LIVE}`,
    [agentId, shopId, windowStart(now, windowHours)],
  );
  return Number(row?.total ?? 0);
}

/** What a buyer spent under an organization's attested permissions during the last `windowHours`. */
export async function spentUnderAttestation(
  em: EntityManager,
  organizationId: string,
  buyerId: string,
  windowHours: number,
  now: Date,
): Promise<number> {
  const [row] = await sql<{ total: string | null }>(
    em,
    `select sum(s.amount_minor) as total from permission_spends s
      where s.organization_id = ? and s.buyer_id = ? and s.attested and s.created_at > ? and ${LIVE}`,
    [organizationId, buyerId, windowStart(now, windowHours)],
  );
  return Number(row?.total ?? 0);
}

/** How many of an organization's biggest attested spenders the console's summary lists (buyersNearCeiling). */
export const TOP_ATTESTED_SPENDERS = 50;

/** Per buyer, attested spend in an organization over the window (for the console summary). */
export async function attestedSpendByBuyer(
  em: EntityManager,
  organizationId: string,
  windowHours: number,
  now: Date,
): Promise<{ buyerId: string; email: string; spentMinor: number }[]> {
  const rows = await sql<{ buyer_id: string; email: string; total: string }>(
    em,
    `select s.buyer_id, b.email, sum(s.amount_minor) as total from permission_spends s join buyers b on b.id = s.buyer_id
      where s.organization_id = ? and s.attested and s.created_at > ? and ${LIVE}
      group by s.buyer_id, b.email order by total desc limit ?`,
    [organizationId, windowStart(now, windowHours), TOP_ATTESTED_SPENDERS],
  );
  return rows.map((r) => ({ buyerId: r.buyer_id, email: r.email, spentMinor: Number(r.total) }));
}

/** Records (or, on a retried payment, refreshes) the spend of a reservation under a permission. */
export async function recordSpend(
  em: EntityManager,
  permission: PermissionRow,
  reservationId: string,
  amountMinor: number,
  now: Date,
): Promise<void> {
  await sql(
    em,
    `insert into permission_spends
       (id, permission_id, agent_id, buyer_id, shop_id, organization_id, attested, amount_minor, currency, reservation_id, created_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (reservation_id) do update
       set permission_id = excluded.permission_id, attested = excluded.attested,
           amount_minor = excluded.amount_minor, created_at = excluded.created_at`,
    [
      newId('spend', now),
      permission.id,
      permission.agentId,
      permission.buyerId,
      permission.shopId,
      permission.organizationId,
      permission.attested,
      amountMinor,
      permission.currency,
      reservationId,
      now,
    ],
  );
}
