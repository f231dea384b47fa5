/**
 * The tier form's attendee part (docs/attendees.md): whether each ticket asks its attendee's name, and the custom
 * questions (id, question, kind, options, required), each added and removed by its own button.
 */
import { useState } from 'preact/hooks';
import type { CreateTierInput } from '@tessera/sdk';
import { CheckboxField, FieldGroup, SelectField, TextField } from '../kit/field.tsx';
import { t } from '../i18n.ts';

type Form = NonNullable<CreateTierInput['attendeeForm']>;
type Kind = Form['questions'][number]['kind'];
const KINDS: readonly Kind[] = ['text', 'choice', 'multiple', 'boolean', 'email'];
const NAME_MODES: readonly Form['name'][] = ['off', 'optional', 'required'];

/** One question as the form edits it: options as one comma-separated text. */
interface Draft {
  id: string;
  label: string;
  kind: Kind;
  required: boolean;
  options: string;
  /** Kept from the saved question (not edited here). */
  rest?: Pick<Form['questions'][number], 'labels' | 'maxLength'>;
}

/** The state of the attendee part, from a tier's saved form (none: nothing asked). */
export function useAttendeeDraft(saved: Form | undefined) {
  const [name, setName] = useState<Form['name']>(saved?.name ?? 'off');
  const [questions, setQuestions] = useState<Draft[]>(
    (saved?.questions ?? []).map((q) => ({
      id: q.id,
      label: q.label,
      kind: q.kind,
      required: q.required,
      options: (q.options ?? []).join(', '),
      rest: { ...(q.labels ? { labels: q.labels } : {}), ...(q.maxLength ? { maxLength: q.maxLength } : {}) },
    })),
  );
  return { name, setName, questions, setQuestions };
}
export type AttendeeDraft = ReturnType<typeof useAttendeeDraft>;

const hasOptions = (k: Kind) => k === 'choice' || k === 'multiple';

/** The form as create_tier and update_tier take it (null: nothing asked); problems go into `problems` by field id. */
export function attendeeFormOf(d: AttendeeDraft, fieldId: (name: string) => string, problems: Record<string, string>) {
  const questions = d.questions.map((q, i) => {
    const options = q.options
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean);
    if (!/^[a-z0-9][a-z0-9_-]{0,39}$/.test(q.id)) problems[fieldId(`q${i}-id`)] = t('views.tiers.attendee.badId');
    if (!q.label.trim()) problems[fieldId(`q${i}-label`)] = t('views.tiers.attendee.needLabel');
    if (hasOptions(q.kind) && options.length === 0)
      problems[fieldId(`q${i}-options`)] = t('views.tiers.attendee.needOptions');
    const rest = q.kind === 'text' ? (q.rest ?? {}) : q.rest?.labels ? { labels: q.rest.labels } : {};
    return {
      id: q.id,
      label: q.label.trim(),
      kind: q.kind,
      required: q.required,
      ...rest,
      ...(hasOptions(q.kind) ? { options } : {}),
    };
  });
  if (d.name === 'off' && questions.length === 0) return null;
  return { name: d.name, questions } as Form;
}

/** The fields: the name question, then each question with its remove button, then "Add a question". */
export function AttendeeFormFields(p: {
  draft: AttendeeDraft;
  fieldId: (name: string) => string;
  errors: Record<string, string | undefined>;
}) {
  const { draft, fieldId } = p;
  const change = (i: number, patch: Partial<Draft>) =>
    draft.setQuestions(draft.questions.map((q, j) => (j === i ? { ...q, ...patch } : q)));
  return (
    <FieldGroup legend={t('views.tiers.attendee.legend')}>
      <SelectField
        id={fieldId('attendee-name')}
        label={t('views.tiers.attendee.name')}
        options={NAME_MODES.map((m) => [m, t(`views.tiers.attendee.nameModes.${m}`)] as const)}
        value={draft.name}
        onValue={(v) => draft.setName(v as Form['name'])}
      />
      {draft.questions.map((q, i) => (
        <FieldGroup key={i} legend={t('views.tiers.attendee.question', { n: i + 1 })}>
          <div class="form-grid">
            <TextField
              id={fieldId(`q${i}-label`)}
              label={t('views.tiers.attendee.label')}
              required
              maxLength={200}
              value={q.label}
              onValue={(label) => change(i, { label })}
              error={p.errors[fieldId(`q${i}-label`)]}
            />
            <TextField
              id={fieldId(`q${i}-id`)}
              label={t('views.tiers.attendee.id')}
              hint={t('views.tiers.attendee.idHint')}
              required
              maxLength={40}
              value={q.id}
              onValue={(id) => change(i, { id })}
              error={p.errors[fieldId(`q${i}-id`)]}
            />
            <SelectField
              id={fieldId(`q${i}-kind`)}
              label={t('views.tiers.attendee.kind')}
              options={KINDS.map((k) => [k, t(`views.tiers.attendee.kinds.${k}`)] as const)}
              value={q.kind}
              onValue={(kind) => change(i, { kind: kind as Kind })}
            />
            {hasOptions(q.kind) ? (
              <TextField
                id={fieldId(`q${i}-options`)}
                label={t('views.tiers.attendee.options')}
                hint={t('views.tiers.attendee.optionsHint')}
                required
                value={q.options}
                onValue={(options) => change(i, { options })}
                error={p.errors[fieldId(`q${i}-options`)]}
              />
            ) : null}
          </div>
          <CheckboxField
            id={fieldId(`q${i}-required`)}
            label={t('views.tiers.attendee.required')}
            checked={q.required}
            onChecked={(required) => change(i, { required })}
          />
          <button
            type="button"
            class="secondary"
            onClick={() => draft.setQuestions(draft.questions.filter((_, j) => j !== i))}
          >
            {t('views.tiers.attendee.remove', { n: i + 1 })}
          </button>
        </FieldGroup>
      ))}
      {draft.questions.length < 30 ? (
        <button
          type="button"
          class="secondary"
          id={fieldId('add-question')}
          onClick={() =>
            draft.setQuestions([...draft.questions, { id: '', label: '', kind: 'text', required: false, options: '' }])
          }
        >
          {t('views.tiers.attendee.add')}
        </button>
      ) : null}
    </FieldGroup>
  );
}
