/**
 * A confirm's first statements written as SQL (src/domain/purchase/confirmation.ts), so that a confirm
 * costs few round trips and no change sets: each round trip is a socket write and a wake-up of PostgreSQL, and the
 * ORM's query building and change-set computation were most of a confirm's server CPU (docs/performance-log.md,
 * 2026-11-28). Rows come back as plain objects with their entities' properties (src/storage/plain-rows.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Shop, Tier, type ShopRow, type TierRow } from './entities/catalog.ts';
import { Payment, Reservation, type PaymentRow, type ReservationRow } from './entities/purchase.ts';
import { boundSql } from './database.ts';
import { fieldsOf, plainRows, selectList, type Field, type Reader } from './plain-rows.ts';
import { CONTEXT_SELECT, contextOf, type PurchaseContext } from './completion-statements.ts';

export interface Shapes {
  reservationSelect: string;
  offerSelect: string;
  shopOf: Reader<ShopRow>;
  tierOf: Reader<TierRow>;
  reservationOf: Reader<ReservationRow>;
  paymentFields: Field[];
  /** Each payment column's type, for casting bound parameters. */
  paymentTypes: Map<string, string>;
}

const shapesByOrm = new WeakMap<object, Shapes>();

/** The statements' select lists and readers for `em`'s metadata (also src/storage/first-step-batch.ts). */
export function shapesOf(em: EntityManager): Shapes {
  const metadata = em.getMetadata();
  let shapes = shapesByOrm.get(metadata);
  if (shapes) return shapes;
  const shop = fieldsOf(em, Shop);
  const tier = fieldsOf(em, Tier);
  const payment = fieldsOf(em, Payment);
  const reservation = fieldsOf(em, Reservation);
  shapes = {
    reservationSelect: `${selectList(reservation, 'r')}, ${selectList(shop, 's')}, ${selectList(tier, 't')}`,
    offerSelect: `${selectList(shop, 's')}, ${selectList(tier, 't')}`,
    shopOf: plainRows(shop, 's'),
    tierOf: plainRows(tier, 't'),
    reservationOf: plainRows(reservation, 'r'),
    paymentFields: payment,
    paymentTypes: new Map(
      // Strings as text: an explicit cast to varchar(n) would cut a longer value instead of refusing it.
      metadata.get(Payment).props.map((p) => [p.fieldNames[0]!, p.columnTypes[0]!.replace(/^varchar\(\d+\)$/, 'text')]),
    ),
  };
  shapesByOrm.set(metadata, shapes);
  return shapes;
}

/** A reservation's shop and tier, as plain rows, in one statement (undefined when either is gone). */
export async function readShopAndTier(
  em: EntityManager,
  shopId: string,
  tierId: string,
): Promise<{ shop: ShopRow; tier: TierRow } | undefined> {
  const { offerSelect, shopOf, tierOf } = shapesOf(em);
  const [row] = await boundSql<Record<string, unknown>>(
    em,
    `select ${offerSelect} from shops s, tiers t where s.id = $1 and t.id = $2`,
    [shopId, tierId],
  );
  return row ? { shop: shopOf(row), tier: tierOf(row) } : undefined;
}

/** A reservation about to be paid for, with what paying and completing it read (`readReservationForPayment`). */
export interface ReservationForPayment {
  reservation: ReservationRow;
  /** Null when gone. */
  shop: ShopRow | null;
  tier: TierRow | null;
  /** The reservation's payment attempts so far, oldest first, and what completing a purchase reads. */
  context: PurchaseContext;
}

/**
 * A reservation with its shop, tier, payment attempts, the active ticket-signing key's id and whether an ACP checkout
 * session made it, in one statement, without a lock. Undefined when there is no such reservation.
 */
export async function readReservationForPayment(
  em: EntityManager,
  id: string,
): Promise<ReservationForPayment | undefined> {
  const { reservationSelect, reservationOf, shopOf, tierOf } = shapesOf(em);
  const [row] = await boundSql<Record<string, unknown>>(
    em,
    `select ${reservationSelect}, ${CONTEXT_SELECT}
       from reservations r left join shops s on s.id = r.shop_id left join tiers t on t.id = r.tier_id
      where r.id = $1`,
    [id],
  );
  if (!row) return undefined;
  return {
    reservation: reservationOf(row),
    shop: row['s.id'] == null ? null : shopOf(row),
    tier: row['t.id'] == null ? null : tierOf(row),
    context: contextOf(em, row),
  };
}

/** The pending payment a confirm records, and the reservation's move to `confirming` (the payment deadline). */
export interface PendingPaymentWrite {
  payment: Omit<PaymentRow, 'attempt'>;
  reservationId: string;
  expiresAt: Date;
  paymentDeadline: Date;
  now: Date;
  /**
   * Without a lock on the reservation: write only if it is still `held` and unchanged since it was read (its
   * `updatedAt`); otherwise nothing is written.
   */
  unchangedSince?: Date;
  /** Write nothing when the reservation has had this many payment attempts already. */
  maxAttempts?: number;
}

/**
 * Moves the reservation to `confirming` and inserts its pending payment, numbered after the reservation's earlier
 * attempts, in one statement; returns the attempt number, or undefined when `unchangedSince` found it changed or it
 * has had `maxAttempts` attempts.
 */
export async function insertPendingPayment(em: EntityManager, w: PendingPaymentWrite): Promise<number | undefined> {
  const { paymentFields, paymentTypes } = shapesOf(em);
  const fields = paymentFields.filter((f) => f.prop !== 'attempt');
  const values = fields.map((f) => (w.payment as Record<string, unknown>)[f.prop] ?? null);
  const first = 6;
  const unchanged = w.unchangedSince
    ? ` and state = 'held' and date_trunc('milliseconds', updated_at) = $5`
    : ' and $5::timestamptz is null';
  const cap = `coalesce($${first + fields.length}::int, 2147483647)`;
  const rows = await boundSql<{ attempt: number }>(
    em,
    `with r as (
       update reservations set state = 'confirming', payment_deadline = $2, expires_at = $3, updated_at = $4
        where id = $1${unchanged} and (select count(*) from payments where reservation_id = $1) < ${cap}
       returning id)
     insert into payments (attempt, ${fields.map((f) => `"${f.column}"`).join(', ')})
     select (select count(*) + 1 from payments where reservation_id = $1),
       ${fields.map((f, i) => `$${first + i}::${paymentTypes.get(f.column)}`).join(', ')}
       from r
     returning attempt`,
    [
      w.reservationId,
      w.paymentDeadline,
      w.expiresAt,
      w.now,
      w.unchangedSince ?? null,
      ...values,
      w.maxAttempts ?? null,
    ],
  );
  return rows[0]?.attempt;
}
