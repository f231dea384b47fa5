/**
 * Attendees and questions (docs/purchase-spine.md, "Attendees and questions"): what a tier asks per ticket, the
 * answers a reserve or a confirm gives for each ticket place (the `index`-th ticket, 0-based, of a tier in the
 * purchase), what is still missing before paying, and each issued ticket's attendee.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ToolError } from '../../kernel/errors.ts';
import type { AnswerValue, AttendeeFormRow, AttendeeRow, QuestionRow } from '../../storage/attendee-rows.ts';
import type { TierRow } from '../../storage/entities/catalog.ts';
import type { ReservationRow, TicketRow } from '../../storage/entities/purchase.ts';
import { readAttendeeForms, readQuoteForms, writeReservationAttendees } from '../../storage/attendee-statements.ts';
import type { ToolContext } from '../context.ts';
import { ownershipOf } from './purchase-access.ts';
import { asksAnything } from '../catalog/attendee-form.ts';

/** The default longest answer of a `text` question. */
export const DEFAULT_TEXT_MAX = 200;

/** The tiers of a purchase (one, or each of its lines) with how many tickets each gets. */
export function placesOf(r: {
  tierId: string;
  quantity: number;
  lines?: readonly { tierId: string; quantity: number }[] | null;
}): Map<string, number> {
  const places = new Map<string, number>();
  for (const l of r.lines ?? [{ tierId: r.tierId, quantity: r.quantity }])
    places.set(l.tierId, (places.get(l.tierId) ?? 0) + l.quantity);
  return places;
}

/** The forms that ask something, by tier, for a quote's or a tier list's output (undefined when none asks). */
export function attendeeQuestionsOf(tiers: readonly Pick<TierRow, 'id' | 'attendeeForm'>[]) {
  const asking = tiers.filter((t) => asksAnything(t.attendeeForm));
  if (asking.length === 0) return undefined;
  return asking.map((t) => ({
    tierId: t.id,
    attendeeName: t.attendeeForm!.name,
    questions: t.attendeeForm!.questions,
  }));
}

/** A ticket place's stored answers, merged with newly given ones (a field given again replaces the old one). */
function merged(old: AttendeeRow | undefined, given: AttendeeRow): AttendeeRow {
  const name = given.name ?? old?.name;
  const answers = { ...old?.answers, ...given.answers };
  return {
    tierId: given.tierId,
    index: given.index,
    ...(name !== undefined ? { name } : {}),
    ...(Object.keys(answers).length ? { answers } : {}),
  };
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Why `value` does not fit question `q` (undefined: it fits). */
function misfit(q: QuestionRow, value: AnswerValue): string | undefined {
  switch (q.kind) {
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'not_boolean';
    case 'multiple':
      if (!Array.isArray(value)) return 'not_list';
      return value.every((v) => q.options!.includes(v)) && new Set(value).size === value.length
        ? undefined
        : 'not_an_option';
    case 'choice':
      if (typeof value !== 'string') return 'not_text';
      return q.options!.includes(value) ? undefined : 'not_an_option';
    case 'email':
      return typeof value === 'string' && value.length <= 254 && EMAIL.test(value) ? undefined : 'not_email';
    case 'text':
      if (typeof value !== 'string') return 'not_text';
      if (value.trim() === '') return 'empty';
      return value.length <= (q.maxLength ?? DEFAULT_TEXT_MAX) ? undefined : 'too_long';
  }
}

/** Checks given answers against the purchase's places and forms (`invalid_answer`), and merges them into `stored`. */
export function mergeAttendees(
  stored: readonly AttendeeRow[] | null,
  given: readonly AttendeeRow[],
  places: Map<string, number>,
  forms: Map<string, AttendeeFormRow | null>,
): AttendeeRow[] {
  const byPlace = new Map((stored ?? []).map((a) => [`${a.tierId}#${a.index}`, a]));
  for (const a of given) {
    const refuse = (reason: string, questionId?: string) => {
      const details = { tierId: a.tierId, index: a.index, ...(questionId ? { questionId } : {}), reason };
      throw new ToolError('invalid_answer', undefined, details);
    };
    const quantity = places.get(a.tierId);
    if (quantity === undefined) refuse('tier_not_in_purchase');
    if (a.index >= quantity!) refuse('no_such_ticket');
    const form = forms.get(a.tierId);
    if (a.name !== undefined && (!form || form.name === 'off')) refuse('name_not_asked');
    if (a.name !== undefined && a.name.trim() === '') refuse('empty');
    for (const [id, value] of Object.entries(a.answers ?? {})) {
      const q = form?.questions.find((x) => x.id === id);
      if (!q) refuse('unknown_question', id);
      const why = misfit(q!, value);
      if (why) refuse(why, id);
    }
    const key = `${a.tierId}#${a.index}`;
    byPlace.set(key, merged(byPlace.get(key), a));
  }
  return [...byPlace.values()].sort((x, y) =>
    x.tierId === y.tierId ? x.index - y.index : x.tierId < y.tierId ? -1 : 1,
  );
}

/** Each ticket place still lacking a required name or answer: `{ tierId, index, name?, questionIds }`. */
export function missingAttendees(
  attendees: readonly AttendeeRow[] | null,
  places: Map<string, number>,
  forms: Map<string, AttendeeFormRow | null>,
) {
  const byPlace = new Map((attendees ?? []).map((a) => [`${a.tierId}#${a.index}`, a]));
  const missing: { tierId: string; index: number; name?: true; questionIds: string[] }[] = [];
  for (const [tierId, quantity] of places) {
    const form = forms.get(tierId);
    if (!asksAnything(form)) continue;
    for (let index = 0; index < quantity; index++) {
      const a = byPlace.get(`${tierId}#${index}`);
      const name = form.name === 'required' && !a?.name;
      const questionIds = form.questions.filter((q) => q.required && a?.answers?.[q.id] === undefined).map((q) => q.id);
      if (name || questionIds.length)
        missing.push({ tierId, index, ...(name ? { name: true as const } : {}), questionIds });
    }
  }
  return missing;
}

/**
 * Before a reservation is paid: merges the answers `given` now into its stored ones, refuses with
 * `attendee_answers_missing` (details.missing: every place and question still lacking) and stores what changed.
 * Costs nothing when the purchase's tiers ask nothing and nothing is given; reads the forms of a multi-line
 * purchase's other tiers only when they are not in `tiers`. Sets `r.attendees` to what is stored.
 */
export async function settleAttendees(
  em: EntityManager,
  r: ReservationRow,
  tiers: readonly Pick<TierRow, 'id' | 'attendeeForm'>[],
  given: readonly AttendeeRow[] | undefined,
): Promise<void> {
  const places = placesOf(r);
  const forms = new Map<string, AttendeeFormRow | null>(tiers.map((t) => [t.id, t.attendeeForm ?? null]));
  const unread = [...places.keys()].filter((id) => !forms.has(id));
  if (unread.length) for (const [id, form] of await readAttendeeForms(em, unread)) forms.set(id, form);
  if (!given?.length && ![...forms.values()].some(asksAnything)) return;
  const attendees = given?.length ? mergeAttendees(r.attendees ?? null, given, places, forms) : (r.attendees ?? null);
  const missing = missingAttendees(attendees, places, forms);
  if (missing.length) {
    const message = `${missing.length} ticket(s) lack required attendee answers: give them as \`attendees\` and retry.`;
    throw new ToolError('attendee_answers_missing', message, { reservationId: r.id, missing });
  }
  if (given?.length) {
    await writeReservationAttendees(em, r.id, attendees);
    r.attendees = attendees;
  }
}

/** Gives each ticket of a completing purchase its attendee: the tier's tickets in id order are its places 0, 1, … */
export function assignAttendees(r: Pick<ReservationRow, 'attendees'>, tickets: readonly TicketRow[]): void {
  if (!r.attendees?.length) return;
  const byPlace = new Map(r.attendees.map((a) => [`${a.tierId}#${a.index}`, a]));
  const seen = new Map<string, number>();
  for (const t of [...tickets].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    const index = seen.get(t.tierId) ?? 0;
    seen.set(t.tierId, index + 1);
    const a = byPlace.get(`${t.tierId}#${index}`);
    t.attendeeName = a?.name ?? null;
    t.attendeeAnswers = a?.answers ?? null;
  }
}

/** A ticket's attendee fields for its output: present only when the purchase gave some. */
export function attendeeOut(t: Pick<TicketRow, 'attendeeName' | 'attendeeAnswers'>) {
  return {
    ...(t.attendeeName ? { attendeeName: t.attendeeName } : {}),
    ...(t.attendeeAnswers ? { answers: t.attendeeAnswers } : {}),
  };
}

/**
 * A reserve that also gives attendee answers: checks them against the quote's tiers first (`invalid_answer`, nothing
 * held), reserves, then stores them on the hold. Without answers it is the plain reserve, at no extra cost.
 */
export async function reserveWithAttendees<V extends { reservation: { id: string } }>(
  ctx: ToolContext,
  quoteId: string,
  given: readonly AttendeeRow[] | undefined,
  reserve: () => Promise<V>,
): Promise<V> {
  if (!given?.length) return reserve();
  const db = ctx.services.db.fork();
  const quote = await readQuoteForms(db, quoteId);
  // Another caller's quote is the reserve's to refuse (not_found), before anything about its tiers is told.
  if (!quote || quote.ownerKey !== ownershipOf(ctx.principal).ownerKey) return reserve();
  const places = placesOf({ tierId: '', quantity: 0, lines: quote.places });
  const attendees = mergeAttendees(null, given, places, quote.forms);
  const view = await reserve();
  await writeReservationAttendees(db, view.reservation.id, attendees);
  return view;
}

/** The attendee questions of a quote's tiers, kept on the quote object for its output (nothing when none asks). */
export function withAttendeeQuestions<Q extends object>(
  quote: Q,
  tiers: readonly Pick<TierRow, 'id' | 'attendeeForm'>[],
) {
  const attendeeQuestions = attendeeQuestionsOf(tiers);
  return attendeeQuestions ? Object.assign(quote, { attendeeQuestions }) : quote;
}

/** A quote's `attendeeQuestions` output field, when `withAttendeeQuestions` gave it one. */
export function attendeeQuestionsField(quote: object) {
  const { attendeeQuestions } = quote as { attendeeQuestions?: ReturnType<typeof attendeeQuestionsOf> };
  return attendeeQuestions ? { attendeeQuestions } : {};
}
