/** A tier's attendee form (docs/purchase-spine.md, "Attendees and questions"): what it asks per ticket, checked. */
import { ToolError } from '../../kernel/errors.ts';
import type { AttendeeFormRow } from '../../storage/attendee-rows.ts';

/** Whether a form asks anything at all (a form asking nothing is stored as null). */
export function asksAnything(form: AttendeeFormRow | null | undefined): form is AttendeeFormRow {
  return !!form && (form.name !== 'off' || form.questions.length > 0);
}

/** A tier's form as given to create_tier or update_tier, checked: null when it asks nothing. */
export function checkAttendeeForm(form: AttendeeFormRow | null): AttendeeFormRow | null {
  if (!asksAnything(form)) return null;
  const ids = new Set<string>();
  form.questions.forEach((q, i) => {
    const field = `attendeeForm.questions[${i}]`;
    if (ids.has(q.id)) throw new ToolError('invalid_input', `Question id ${q.id} is used twice.`, { field });
    ids.add(q.id);
    const needsOptions = q.kind === 'choice' || q.kind === 'multiple';
    if (needsOptions !== (q.options !== undefined && q.options.length > 0)) {
      const message = needsOptions ? 'A choice question needs options.' : 'Only choice questions have options.';
      throw new ToolError('invalid_input', message, { field: `${field}.options` });
    }
    if (q.options && new Set(q.options).size !== q.options.length)
      throw new ToolError('invalid_input', 'An option is listed twice.', { field: `${field}.options` });
    if (q.maxLength !== undefined && q.kind !== 'text')
      throw new ToolError('invalid_input', 'Only text questions have a maxLength.', { field: `${field}.maxLength` });
  });
  return { name: form.name, questions: form.questions };
}
