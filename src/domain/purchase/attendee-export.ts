/**
 * The tickets export's attendee columns (docs/purchase-spine.md, "Attendees and questions"): `attendee_name` and one
 * `answer_<question id>` column per question the shop's tiers (of the filtered event) ask. A shop whose tiers ask
 * nothing gets the export as before, columns unchanged.
 */
import type { Database } from '../../storage/database.ts';
import type { AnswerValue, AttendeeFormRow } from '../../storage/attendee-rows.ts';

/** The parts of an export's spec the attendee columns extend. */
interface Columns {
  header: readonly string[];
  select: string;
  row: (r: Record<string, unknown>) => unknown[];
}

/** An answer as a CSV cell: text as given, booleans as yes/no, several options joined with "; ". */
function cell(v: AnswerValue | undefined): string | null {
  if (v === undefined) return null;
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return Array.isArray(v) ? v.join('; ') : v;
}

/** `spec` with the attendee columns added when a tier of the shop (and event) asks something; else `spec` itself. */
export async function withAttendeeColumns<S extends Columns>(
  db: Database,
  spec: S,
  shopId: string,
  eventId: string | undefined,
): Promise<S> {
  const forms = await db.execute<{ form: AttendeeFormRow }>(
    `select attendee_form as form from tiers where shop_id = ? and attendee_form is not null${
      eventId ? ' and event_id = ?' : ''
    } order by created_at, id`,
    eventId ? [shopId, eventId] : [shopId],
  );
  if (forms.length === 0) return spec;
  const questionIds = [...new Set(forms.flatMap((f) => f.form.questions.map((q) => q.id)))];
  return {
    ...spec,
    header: [...spec.header, 'attendee_name', ...questionIds.map((id) => `answer_${id}`)],
    select: `${spec.select}, k.attendee_name, k.attendee_answers`,
    row: (r) => {
      const answers = (r.attendee_answers ?? {}) as Record<string, AnswerValue>;
      return [...spec.row(r), r.attendee_name ?? null, ...questionIds.map((id) => cell(answers[id]))];
    },
  };
}
