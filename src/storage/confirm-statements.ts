/**
 * A confirm's statements written as SQL (src/domain/purchase/confirmation.ts and paid-purchase.ts), so that a confirm
 * costs few round trips and no change sets: each round trip is a socket write and a wake-up of PostgreSQL, and the
 * ORM's query building and change-set computation were most of a confirm's server CPU (docs/performance-log.md,
 * 2026-11-28). Rows come back as plain objects with their entities' properties (src/storage/plain-rows.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Shop, Tier, type ShopRow, type TierRow } from './entities/catalog.ts';
import { Payment, Reservation, type PaymentRow, type ReservationRow, type TicketRow } from './entities/purchase.ts';
import { boundSql } from './database.ts';
import { fieldsOf, plainRows, selectList, type Field, type Reader } from './plain-rows.ts';

interface Shapes {
  reservationSelect: string;
  offerSelect: string;
  shopOf: Reader<ShopRow>;
  tierOf: Reader<TierRow>;
  lockSelect: string;
  paymentOf: Reader<PaymentRow>;
  reservationOf: Reader<ReservationRow>;
  paymentJsonOf: Reader<PaymentRow>;
  paymentFields: Field[];
  /** Each payment column's type, for casting bound parameters. */
  paymentTypes: Map<string, string>;
}

const shapesByOrm = new WeakMap<object, Shapes>();

function shapesOf(em: EntityManager): Shapes {
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
    lockSelect: `${selectList(payment, 'p')}, ${selectList(reservation, 'r')}`,
    paymentOf: plainRows(payment, 'p'),
    reservationOf: plainRows(reservation, 'r'),
    paymentJsonOf: plainRows(payment, ''),
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

/**
 * A reservation with its shop (null when gone) and tier, in one statement; `lock`: FOR UPDATE of the reservation.
 * Undefined when there is no such reservation.
 */
export async function readReservationForPayment(
  em: EntityManager,
  id: string,
  opts: { lock: boolean },
): Promise<{ reservation: ReservationRow; shop: ShopRow | null; tier: TierRow | null } | undefined> {
  const { reservationSelect, reservationOf, shopOf, tierOf } = shapesOf(em);
  const [row] = await boundSql<Record<string, unknown>>(
    em,
    `select ${reservationSelect}
       from reservations r left join shops s on s.id = r.shop_id left join tiers t on t.id = r.tier_id
      where r.id = $1${opts.lock ? ' for update of r' : ''}`,
    [id],
  );
  if (!row) return undefined;
  return {
    reservation: reservationOf(row),
    shop: row['s.id'] == null ? null : shopOf(row),
    tier: row['t.id'] == null ? null : tierOf(row),
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
}

/**
 * Moves the reservation to `confirming` and inserts its pending payment, numbered after the reservation's earlier
 * attempts, in one statement; returns the attempt number, or undefined when `unchangedSince` found it changed.
 */
export async function insertPendingPayment(em: EntityManager, w: PendingPaymentWrite): Promise<number | undefined> {
  const { paymentFields, paymentTypes } = shapesOf(em);
  const fields = paymentFields.filter((f) => f.prop !== 'attempt');
  const values = fields.map((f) => (w.payment as Record<string, unknown>)[f.prop] ?? null);
  const first = 6;
  const unchanged = w.unchangedSince
    ? ` and state = 'held' and date_trunc('milliseconds', updated_at) = $5`
    : ' and $5::timestamptz is null';
  const rows = await boundSql<{ attempt: number }>(
    em,
    `with r as (
       update reservations set state = 'confirming', payment_deadline = $2, expires_at = $3, updated_at = $4
        where id = $1${unchanged}
       returning id)
     insert into payments (attempt, ${fields.map((f) => `"${f.column}"`).join(', ')})
     select (select count(*) + 1 from payments where reservation_id = $1),
       ${fields.map((f, i) => `$${first + i}::${paymentTypes.get(f.column)}`).join(', ')}
       from r
     returning attempt`,
    [w.reservationId, w.paymentDeadline, w.expiresAt, w.now, w.unchangedSince ?? null, ...values],
  );
  return rows[0]?.attempt;
}

/** A payment locked with its reservation, and what completing it needs to know, read in the same statement. */
export interface LockedPayment {
  payment: PaymentRow;
  reservation: ReservationRow;
  /** The reservation's other payment attempts (as last committed). */
  otherAttempts: PaymentRow[];
  /** The active ticket-signing key's id (null: none). */
  activeKid: string | null;
  /** Whether an ACP checkout session made the reservation. */
  acpSession: boolean;
}

/**
 * Locks a payment and its reservation (FOR UPDATE, both rows as last committed) and reads the reservation's other
 * attempts, the active ticket-signing key's id and whether an ACP checkout session made it, in one statement.
 */
export async function lockPaymentWithPurchase(
  em: EntityManager,
  paymentId: string,
): Promise<LockedPayment | undefined> {
  const { lockSelect, paymentOf, reservationOf, paymentJsonOf } = shapesOf(em);
  const [row] = await boundSql<Record<string, unknown>>(
    em,
    `select ${lockSelect},
       (select kid from ticket_signing_keys where retired_at is null limit 1) as "activeKid",
       exists (select from acp_checkout_sessions a where a.reservation_id = r.id) as "acpSession",
       (select coalesce(jsonb_agg(to_jsonb(x) order by x.attempt), '[]'::jsonb) from payments x
         where x.reservation_id = r.id and x.id <> p.id) as "otherAttempts"
       from payments p join reservations r on r.id = p.reservation_id
      where p.id = $1
        for update of p, r`,
    [paymentId],
  );
  if (!row) return undefined;
  return {
    payment: paymentOf(row),
    reservation: reservationOf(row),
    otherAttempts: (row.otherAttempts as Record<string, unknown>[]).map(paymentJsonOf),
    activeKid: (row.activeKid as string | null) ?? null,
    acpSession: row.acpSession === true,
  };
}

/** Everything a paid purchase's completion writes (src/domain/purchase/paid-purchase.ts decides each value). */
export interface CompletionWrite {
  payment: Pick<PaymentRow, 'id' | 'providerReference'>;
  reservationId: string;
  order: {
    id: string;
    shopId: string;
    organizationId: string;
    ownerKey: string;
    buyerId?: string | null | undefined;
    paymentId: string;
    eventId: string;
    tierId: string;
    quantity: number;
    totalMinor: number;
    currency: string;
  };
  tickets: readonly Pick<TicketRow, 'id' | 'code' | 'signingKeyId' | 'signedCode'>[];
  /** The confirmation e-mail's queue row id, when one is queued. */
  mailId: string | null;
  /** The outbox event. */
  event: { id: string; type: string; data: Record<string, unknown> };
  now: Date;
}

/**
 * Completes a paid purchase in one statement: the payment succeeded, the reservation completed, the order and its
 * tickets inserted, the confirmation e-mail queued (when `mailId`) and the outbox event recorded. Run under the locks
 * of `lockPaymentWithPurchase`, in the same transaction.
 */
export async function writeCompletion(em: EntityManager, w: CompletionWrite): Promise<void> {
  const o = w.order;
  await boundSql(
    em,
    `with p as (
       update payments set state = 'succeeded', failure_code = null,
              provider_reference = coalesce(provider_reference, $2), updated_at = $3
        where id = $1),
     r as (
       update reservations set state = 'completed', release_reason = null, released_at = null,
              payment_deadline = null, completed_at = $3, updated_at = $3
        where id = $4),
     o as (
       insert into orders (id, shop_id, organization_id, owner_key, buyer_id, reservation_id, payment_id, event_id,
                           tier_id, quantity, total_minor, currency, state, refund_reason, refunded_minor, created_at,
                           refunded_at)
       values ($5, $6, $7, $8, $9, $4, $1, $10, $11, $12, $13, $14, 'completed', null, 0, $3, null)),
     t as (
       insert into tickets (id, order_id, event_id, tier_id, code, state, signing_key_id, signed_code, created_at)
       select j.id, $5, $10, $11, j.code, 'valid', j.kid, j.signed, $3
         from jsonb_to_recordset($15::jsonb) as j(id text, code text, kid text, signed text)),
     m as (
       insert into order_mail (id, kind, order_id, refund_id, next_attempt_at, created_at)
       select $16, 'confirmation', $5, null, $3, $3 where $16::text is not null
       on conflict do nothing)
     insert into webhook_events (id, shop_id, type, data, created_at) values ($17, $6, $18, $19::jsonb, $3)`,
    [
      w.payment.id,
      w.payment.providerReference,
      w.now,
      w.reservationId,
      o.id,
      o.shopId,
      o.organizationId,
      o.ownerKey,
      o.buyerId ?? null,
      o.eventId,
      o.tierId,
      o.quantity,
      o.totalMinor,
      o.currency,
      JSON.stringify(w.tickets.map((t) => ({ id: t.id, code: t.code, kid: t.signingKeyId, signed: t.signedCode }))),
      w.mailId,
      w.event.id,
      w.event.type,
      JSON.stringify(w.event.data),
    ],
  );
}
