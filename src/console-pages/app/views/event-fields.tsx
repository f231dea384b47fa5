/** The event form's fields (title, venue, start, end, time zone) and their checks, shared by creating and editing. */
import { useState } from 'preact/hooks';
import type { JSX } from 'preact';
import { FormProblems } from '../api.ts';
import { TextField } from '../kit/field.tsx';
import { instantOf, useForm, type Form } from '../kit/form.ts';
import { t } from '../i18n.ts';
import { TimeZoneField } from './time-zone-field.tsx';

/** What the fields hold, as typed (times as `datetime-local` text). */
export interface EventFieldValues {
  title: string;
  venue: string;
  startsAt: string;
  endsAt: string;
  timeZone: string;
}

/** The fields' values once checked: trimmed text, times as instants (`ends` null when empty). */
export interface CheckedEvent {
  title: string;
  venue: string;
  starts: string;
  ends: string | null;
  timeZone: string;
}

/**
 * The fields' state, the form that places errors under them (ids `<prefix>-title`, `-venue`, `-starts`, `-ends`,
 * `-time-zone`), `check()` (throws `FormProblems`: a title and a start are needed, the end after the start) and the
 * rendered fields.
 */
export function useEventFields(
  prefix: string,
  initial: EventFieldValues,
): { form: Form; check: () => CheckedEvent; fields: JSX.Element } {
  const [v, setV] = useState(initial);
  const id = {
    title: `${prefix}-title`,
    venue: `${prefix}-venue`,
    startsAt: `${prefix}-starts`,
    endsAt: `${prefix}-ends`,
    timeZone: `${prefix}-time-zone`,
  };
  const form = useForm(id);
  const set = (key: keyof EventFieldValues) => (value: string) => setV((old) => ({ ...old, [key]: value }));
  const check = (): CheckedEvent => {
    const problems: Record<string, string> = {};
    if (!v.title.trim()) problems[id.title] = t('views.events.needTitle');
    const starts = instantOf(v.startsAt);
    if (!starts) problems[id.startsAt] = t('views.events.needStart');
    const ends = instantOf(v.endsAt);
    if (ends && starts && ends <= starts) problems[id.endsAt] = t('views.events.endAfterStart');
    if (Object.keys(problems).length) throw new FormProblems(problems);
    return { title: v.title.trim(), venue: v.venue.trim(), starts: starts!, ends, timeZone: v.timeZone.trim() };
  };
  const fields = (
    <>
      <TextField
        id={id.title}
        label={t('views.events.fieldTitle')}
        required
        maxLength={200}
        value={v.title}
        onValue={set('title')}
        error={form.errors[id.title]}
      />
      <TextField
        id={id.venue}
        label={t('views.events.fieldVenue')}
        maxLength={200}
        value={v.venue}
        onValue={set('venue')}
        error={form.errors[id.venue]}
      />
      <TextField
        id={id.startsAt}
        type="datetime-local"
        label={t('views.events.fieldStarts')}
        hint={t('views.events.localTime')}
        required
        value={v.startsAt}
        onValue={set('startsAt')}
        error={form.errors[id.startsAt]}
      />
      <TextField
        id={id.endsAt}
        type="datetime-local"
        label={t('views.events.fieldEnds')}
        value={v.endsAt}
        onValue={set('endsAt')}
        error={form.errors[id.endsAt]}
      />
      <TimeZoneField id={id.timeZone} value={v.timeZone} onValue={set('timeZone')} error={form.errors[id.timeZone]} />
    </>
  );
  return { form, check, fields };
}
