/** The stored shapes of attendees and questions (docs/purchase-spine.md, "Attendees and questions"). */

/** Whether a tier asks for each ticket's attendee name. */
export type AttendeeNameMode = 'off' | 'optional' | 'required';
/** What kind of answer a question takes. */
export type QuestionKind = 'text' | 'choice' | 'multiple' | 'boolean' | 'email';

/** One custom question of a tier. */
export interface QuestionRow {
  id: string;
  label: string;
  /** The label in other languages (the buyer's language first, then `label`). */
  labels?: { lang: string; label: string }[];
  kind: QuestionKind;
  required: boolean;
  /** `text`: the longest answer (default 200). */
  maxLength?: number;
  /** `choice` and `multiple`: the options. */
  options?: string[];
}

/** A tier's attendee form (tiers.attendee_form; null: the tier asks nothing). */
export interface AttendeeFormRow {
  name: AttendeeNameMode;
  questions: QuestionRow[];
}

/** An answer: text, e-mail and choice are strings, boolean a boolean, multiple a list of options. */
export type AnswerValue = string | boolean | string[];

/** One ticket place's answers (reservations.attendees): the `index`-th ticket (0-based) of the tier in the purchase. */
export interface AttendeeRow {
  tierId: string;
  index: number;
  name?: string;
  answers?: Record<string, AnswerValue>;
}
