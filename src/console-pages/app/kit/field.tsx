/**
 * Form fields with their label, hint and error: the error's element is always there and tied to the control by
 * `aria-describedby` (with the hint), and the control is `aria-invalid` while it has one.
 */
import type { ComponentChildren } from 'preact';

interface Common {
  /** The control's id; the hint is `<id>-hint`, the error `<id>-error`. */
  id: string;
  label: string;
  hint?: string | undefined;
  /** The field's current error text ('' or undefined: none). */
  error?: string | undefined;
}

function describedBy(p: Common): string | undefined {
  return [p.error ? `${p.id}-error` : '', p.hint ? `${p.id}-hint` : ''].filter(Boolean).join(' ') || undefined;
}

function Extras(p: Common) {
  return (
    <>
      {p.hint ? (
        <span id={`${p.id}-hint`} class="hint">
          {p.hint}
        </span>
      ) : null}
      <span id={`${p.id}-error`} class="field-error" hidden={!p.error}>
        {p.error ?? ''}
      </span>
    </>
  );
}

/** The input attributes a field may set. */
interface InputAttrs {
  type?: 'text' | 'email' | 'number' | 'url' | 'search' | 'datetime-local' | 'date' | 'password';
  required?: boolean;
  autocomplete?: string;
  /** The same as `autocomplete` (React's spelling). */
  autoComplete?: string;
  maxLength?: number;
  min?: number | string;
  max?: number | string;
  step?: number | string;
  inputMode?: 'text' | 'numeric' | 'decimal' | 'email' | 'search';
  /** The id of a `<datalist>` of suggestions. */
  list?: string;
}

/** A text-like input (`type` text, email, number, datetime-local, …); `onValue` gets the new text. */
export function TextField(p: Common & InputAttrs & { value: string; onValue: (value: string) => void }) {
  const { id, label, hint, error, value, onValue, type, ...rest } = p;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        {...rest}
        // Preact types a password input apart from the others; the union is one attribute here.
        type={(type ?? 'text') as 'text'}
        id={id}
        value={value}
        onInput={(e) => onValue(e.currentTarget.value)}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={describedBy(p)}
      />
      <Extras id={id} label={label} hint={hint} error={error} />
    </div>
  );
}

/** A multi-line text field. */
export function TextAreaField(p: Common & { value: string; onValue: (value: string) => void; maxLength?: number }) {
  return (
    <div class="field">
      <label for={p.id}>{p.label}</label>
      <textarea
        id={p.id}
        value={p.value}
        maxLength={p.maxLength}
        rows={3}
        onInput={(e) => p.onValue(e.currentTarget.value)}
        aria-invalid={p.error ? 'true' : undefined}
        aria-describedby={describedBy(p)}
      />
      <Extras {...p} />
    </div>
  );
}

/** A drop-down of `options` ([value, label] pairs). */
export function SelectField(
  p: Common & { value: string; onValue: (value: string) => void; options: readonly (readonly [string, string])[] },
) {
  return (
    <div class="field">
      <label for={p.id}>{p.label}</label>
      <select
        id={p.id}
        value={p.value}
        onChange={(e) => p.onValue(e.currentTarget.value)}
        aria-invalid={p.error ? 'true' : undefined}
        aria-describedby={describedBy(p)}
      >
        {p.options.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
      <Extras {...p} />
    </div>
  );
}

/** A checkbox with its label after it. */
export function CheckboxField(p: Common & { checked: boolean; onChecked: (checked: boolean) => void }) {
  return (
    <div class="field field-check">
      <input
        type="checkbox"
        id={p.id}
        checked={p.checked}
        onChange={(e) => p.onChecked(e.currentTarget.checked)}
        aria-invalid={p.error ? 'true' : undefined}
        aria-describedby={describedBy(p)}
      />
      <label for={p.id}>{p.label}</label>
      <Extras {...p} />
    </div>
  );
}

/** A group of fields with a legend (checkbox sets, a tier's restrictions). */
export function FieldGroup(props: { legend: string; children: ComponentChildren }) {
  return (
    <fieldset class="field-group">
      <legend>{props.legend}</legend>
      {props.children}
    </fieldset>
  );
}
