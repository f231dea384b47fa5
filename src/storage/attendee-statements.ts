/** The statements of attendees and questions (src/domain/purchase/attendees.ts), each run only when a purchase uses them. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AttendeeFormRow, AttendeeRow } from './attendee-rows.ts';
import { boundSql } from './database.ts';

/** The attendee forms of some tiers, by tier id (tiers asking nothing have null). */
export async function readAttendeeForms(
  em: EntityManager,
  tierIds: readonly string[],
): Promise<Map<string, AttendeeFormRow | null>> {
  const rows = await boundSql<{ id: string; form: AttendeeFormRow | null }>(
    em,
    'select id, attendee_form as form from tiers where id = any($1::text[])',
    [tierIds],
  );
  return new Map(rows.map((r) => [r.id, r.form]));
}

/** Stores a reservation's attendee answers (its `updated_at` unchanged: the answers are not part of the hold). */
export async function writeReservationAttendees(
  em: EntityManager,
  reservationId: string,
  attendees: readonly AttendeeRow[] | null,
): Promise<void> {
  await boundSql(em, 'update reservations set attendees = $2::jsonb where id = $1', [
    reservationId,
    attendees ? JSON.stringify(attendees) : null,
  ]);
}

/** A quote's owner, its places by tier (one tier, or each of its lines) and those tiers' attendee forms. */
export interface QuoteForms {
  ownerKey: string;
  places: { tierId: string; quantity: number }[];
  forms: Map<string, AttendeeFormRow | null>;
}

/** Reads a quote's owner, places and forms in one statement; undefined when there is no such quote. */
export async function readQuoteForms(em: EntityManager, quoteId: string): Promise<QuoteForms | undefined> {
  const [row] = await boundSql<{
    ownerKey: string;
    tierId: string;
    quantity: number;
    lines: { tierId: string; quantity: number }[] | null;
    forms: Record<string, AttendeeFormRow | null> | null;
  }>(
    em,
    `select q.owner_key as "ownerKey", q.tier_id as "tierId", q.quantity, q.lines,
            (select jsonb_object_agg(t.id, t.attendee_form) from tiers t
              where t.id = q.tier_id
                 or t.id in (select l->>'tierId' from jsonb_array_elements(coalesce(q.lines, '[]'::jsonb)) l)) as forms
       from quotes q where q.id = $1`,
    [quoteId],
  );
  if (!row) return undefined;
  return {
    ownerKey: row.ownerKey,
    places: row.lines ?? [{ tierId: row.tierId, quantity: row.quantity }],
    forms: new Map(Object.entries(row.forms ?? {})),
  };
}
