/**
 * A paid purchase's completion written as SQL (src/domain/purchase/paid-purchase.ts): one statement reads what
 * completing needs (when the confirm has not read it already), one statement writes the whole completion without a
 * transaction of its own. The write locks the payment and then its reservation (the order every other writer of a
 * payment takes) and writes everything, or nothing when either changed since it was read.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Payment, Reservation, type PaymentRow, type ReservationRow, type TicketRow } from './entities/purchase.ts';
import { boundSql } from './database.ts';
import { recordedData } from '../kernel/event-data.ts';
import { fieldsOf, plainRows, selectList, type Reader } from './plain-rows.ts';

/** What completing a reservation's purchase reads beside the reservation and the payment. */
export interface PurchaseContext {
  /** The reservation's payment attempts, oldest first. */
  attempts: PaymentRow[];
  /** The active ticket-signing key's id (null: none). */
  activeKid: string | null;
  /** Whether an ACP checkout session made the reservation. */
  acpSession: boolean;
}

/** The select list of a PurchaseContext for the reservation aliased `r` (read back with `contextOf`). */
export const CONTEXT_SELECT = `(select kid from ticket_signing_keys where retired_at is null limit 1) as "activeKid",
  exists (select from acp_checkout_sessions a where a.reservation_id = r.id) as "acpSession",
  (select coalesce(jsonb_agg(to_jsonb(x) order by x.attempt), '[]'::jsonb) from payments x
    where x.reservation_id = r.id) as "attempts"`;

interface Shapes {
  select: string;
  paymentOf: Reader<PaymentRow>;
  reservationOf: Reader<ReservationRow>;
  paymentJsonOf: Reader<PaymentRow>;
}

const shapesByOrm = new WeakMap<object, Shapes>();

function shapesOf(em: EntityManager): Shapes {
  const metadata = em.getMetadata();
  let shapes = shapesByOrm.get(metadata);
  if (shapes) return shapes;
  const payment = fieldsOf(em, Payment);
  const reservation = fieldsOf(em, Reservation);
  shapes = {
    select: `${selectList(payment, 'p')}, ${selectList(reservation, 'r')}`,
    paymentOf: plainRows(payment, 'p'),
    reservationOf: plainRows(reservation, 'r'),
    paymentJsonOf: plainRows(payment, ''),
  };
  shapesByOrm.set(metadata, shapes);
  return shapes;
}

/** The PurchaseContext of a row read with CONTEXT_SELECT. */
export function contextOf(em: EntityManager, row: Record<string, unknown>): PurchaseContext {
  return {
    attempts: (row.attempts as Record<string, unknown>[]).map(shapesOf(em).paymentJsonOf),
    activeKid: (row.activeKid as string | null) ?? null,
    acpSession: row.acpSession === true,
  };
}

/** A payment, its reservation and their PurchaseContext, as last committed. */
export interface PurchaseState {
  payment: PaymentRow;
  reservation: ReservationRow;
  context: PurchaseContext;
}

/** Reads a payment with its reservation and their PurchaseContext in one statement, without a lock. */
export async function readPurchaseState(em: EntityManager, paymentId: string): Promise<PurchaseState | undefined> {
  const { select, paymentOf, reservationOf } = shapesOf(em);
  const [row] = await boundSql<Record<string, unknown>>(
    em,
    `select ${select}, ${CONTEXT_SELECT}
       from payments p join reservations r on r.id = p.reservation_id
      where p.id = $1`,
    [paymentId],
  );
  if (!row) return undefined;
  return { payment: paymentOf(row), reservation: reservationOf(row), context: contextOf(em, row) };
}

/** Everything a paid purchase's completion writes (src/domain/purchase/paid-purchase.ts decides each value). */
export interface CompletionWrite {
  payment: Pick<PaymentRow, 'id' | 'providerReference'>;
  /** The reservation as read: written only if still in this state and unchanged since (`updatedAt`). */
  reservation: Pick<ReservationRow, 'id' | 'state' | 'updatedAt'>;
  order: {
    id: string;
    shopId: string;
    organizationId: string;
    ownerKey: string;
    buyerId?: string | null | undefined;
    eventId: string;
    tierId: string;
    quantity: number;
    totalMinor: number;
    currency: string;
  };
  /** The tickets, signed with `kid`, which must still be the active key. */
  tickets: readonly (Pick<TicketRow, 'id' | 'code' | 'signedCode'> &
    Partial<Pick<TicketRow, 'attendeeName' | 'attendeeAnswers'>>)[];
  kid: string;
  /** The confirmation e-mail's queue row id, when one is queued. */
  mailId: string | null;
  /** The outbox event. */
  event: { id: string; type: string; data: Record<string, unknown> };
  now: Date;
}

/**
 * Completes a paid purchase in one statement, when the payment is still pending, the reservation unchanged since it was
 * read and the ticket key still active: the payment succeeded, the reservation completed, the order and its tickets
 * inserted, the confirmation e-mail queued (when `mailId`) and the outbox event recorded. Both rows are locked first
 * (payment, then reservation) and every write is conditioned on both locks, so it writes all or nothing. Returns
 * whether it wrote.
 */
export async function writeCompletion(em: EntityManager, w: CompletionWrite): Promise<boolean> {
  const o = w.order;
  // Tickets with attendees (src/domain/purchase/attendees.ts) add two columns; without, the statement is unchanged.
  const attendees = w.tickets.some((t) => t.attendeeName || t.attendeeAnswers);
  const [cols, vals, recs] = attendees
    ? [', attendee_name, attendee_answers', ', j.name, j.answers', ', name text, answers jsonb']
    : ['', '', ''];
  const rows = await boundSql<{ done: number }>(
    em,
    `with lp as (select id from payments where id = $1 and state = 'pending' for update),
     lr as (
       select id from reservations
        where id = $4 and state = $15 and date_trunc('milliseconds', updated_at) = $16 and exists (select from lp)
          for update),
     ok as (select from lr where exists (select from ticket_signing_keys where kid = $17 and retired_at is null)),
     p as (
       update payments set state = 'succeeded', failure_code = null,
              provider_reference = coalesce(provider_reference, $2), updated_at = $3
        where id = $1 and exists (select from ok)),
     r as (
       update reservations set state = 'completed', release_reason = null, released_at = null,
              payment_deadline = null, completed_at = $3, updated_at = $3
        where id = $4 and exists (select from ok)),
     o as (
       insert into orders (id, shop_id, organization_id, owner_key, buyer_id, reservation_id, payment_id, event_id,
                           tier_id, quantity, total_minor, currency, state, refund_reason, refunded_minor, created_at,
                           refunded_at)
       select $5::text, $6::text, $7::text, $8::text, $9::text, $4, $1, $10::text, $11::text, $12::int, $13::int,
              $14::text, 'completed', null, 0, $3, null
        where exists (select from ok)),
     t as (
       insert into tickets (id, order_id, event_id, tier_id, code, state, signing_key_id, signed_code,
                            created_at${cols})
       select j.id, $5, $10, $11, j.code, 'valid', $17, j.signed, $3${vals}
         from jsonb_to_recordset($18::jsonb) as j(id text, code text, signed text${recs})
        where exists (select from ok)),
     m as (
       insert into order_mail (id, kind, order_id, refund_id, next_attempt_at, created_at)
       select $19::text, 'confirmation', $5, null, $3, $3 where $19::text is not null and exists (select from ok)
       on conflict do nothing),
     e as (
       insert into webhook_events (id, shop_id, type, data, created_at)
       select $20::text, $6, $21::text, $22::jsonb, $3 where exists (select from ok))
     select count(*)::int as done from ok`,
    [
      w.payment.id,
      w.payment.providerReference,
      w.now,
      w.reservation.id,
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
      w.reservation.state,
      w.reservation.updatedAt,
      w.kid,
      JSON.stringify(
        w.tickets.map((t) => ({
          id: t.id,
          code: t.code,
          signed: t.signedCode,
          ...(attendees ? { name: t.attendeeName ?? null, answers: t.attendeeAnswers ?? null } : {}),
        })),
      ),
      w.mailId,
      w.event.id,
      w.event.type,
      recordedData(w.event.data),
    ],
  );
  return rows[0]?.done === 1;
}
