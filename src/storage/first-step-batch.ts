/**
 * A first-step group's statements (src/domain/purchase/first-step-groups.ts): the reservations of several confirms
 * read in one statement, and their moves to `confirming` with their pending payments written in one, each under the
 * conditions `insertPendingPayment` (src/storage/confirm-statements.ts) writes one with.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { boundSql } from './database.ts';
import { CONTEXT_SELECT, contextOf } from './completion-statements.ts';
import { shapesOf, type PendingPaymentWrite, type ReservationForPayment } from './confirm-statements.ts';

/** `readReservationForPayment` for each of `ids`, in one statement; by reservation id (absent: no such reservation). */
export async function readReservationsForPayment(
  em: EntityManager,
  ids: readonly string[],
): Promise<Map<string, ReservationForPayment>> {
  const found = new Map<string, ReservationForPayment>();
  if (!ids.length) return found;
  const { reservationSelect, reservationOf, shopOf, tierOf } = shapesOf(em);
  const rows = await boundSql<Record<string, unknown>>(
    em,
    `select ${reservationSelect}, ${CONTEXT_SELECT}
       from reservations r left join shops s on s.id = r.shop_id left join tiers t on t.id = r.tier_id
      where r.id = any($1::text[])`,
    [ids],
  );
  for (const row of rows) {
    const reservation = reservationOf(row);
    found.set(reservation.id, {
      reservation,
      shop: row['s.id'] == null ? null : shopOf(row),
      tier: row['t.id'] == null ? null : tierOf(row),
      context: contextOf(em, row),
    });
  }
  return found;
}

/**
 * `insertPendingPayment` for several reservations (each at most once, each with `unchangedSince`), in one statement:
 * each held reservation unchanged since its read, and under its attempts' cap, moves to `confirming` and gets its
 * pending payment. Returns each written reservation's attempt number, by reservation id; the others wrote nothing.
 */
export async function insertPendingPayments(
  em: EntityManager,
  writes: readonly PendingPaymentWrite[],
): Promise<Map<string, number>> {
  const written = new Map<string, number>();
  if (!writes.length) return written;
  const { paymentFields } = shapesOf(em);
  const fields = paymentFields.filter((f) => f.prop !== 'attempt');
  const moves = writes.map((w) => {
    if (!w.unchangedSince) throw new Error('insertPendingPayments writes only reservations unchanged since read.');
    return {
      reservation_id: w.reservationId,
      payment_deadline: w.paymentDeadline.toISOString(),
      expires_at: w.expiresAt.toISOString(),
      now: w.now.toISOString(),
      unchanged: w.unchangedSince.toISOString(),
      max_attempts: w.maxAttempts ?? null,
    };
  });
  const payments = writes.map((w) => {
    const row: Record<string, unknown> = {};
    for (const f of fields) {
      const v = (w.payment as Record<string, unknown>)[f.prop] ?? null;
      row[f.column] = v instanceof Date ? v.toISOString() : v;
    }
    return row;
  });
  const columns = fields.map((f) => `"${f.column}"`).join(', ');
  const rows = await boundSql<{ reservation_id: string; attempt: number }>(
    em,
    `with v as (
       select * from jsonb_to_recordset($1::jsonb) as v(reservation_id text, payment_deadline timestamptz,
         expires_at timestamptz, now timestamptz, unchanged timestamptz, max_attempts int)
     ), r as (
       update reservations res
          set state = 'confirming', payment_deadline = v.payment_deadline, expires_at = v.expires_at, updated_at = v.now
         from v
        where res.id = v.reservation_id and res.id = any($3::text[]) and res.state = 'held'
          and date_trunc('milliseconds', res.updated_at) = v.unchanged
          and (select count(*) from payments x where x.reservation_id = res.id) < coalesce(v.max_attempts, 2147483647)
       returning res.id)
     insert into payments (attempt, ${columns})
     select (select count(*) + 1 from payments x where x.reservation_id = p.reservation_id), ${fields
       .map((f) => `p."${f.column}"`)
       .join(', ')}
       from jsonb_populate_recordset(null::payments, $2::jsonb) p
      where p.reservation_id in (select id from r)
     returning reservation_id, attempt`,
    // The ids again as an array: the planner then reaches the reservations by their key, not by a scan of the table.
    [JSON.stringify(moves), JSON.stringify(payments), writes.map((w) => w.reservationId)],
  );
  for (const r of rows) written.set(r.reservation_id, r.attempt);
  return written;
}
