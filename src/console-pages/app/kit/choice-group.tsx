/**
 * A set of checkboxes with a legend, a hint and one error for the whole set (scopes of a key, event types of a
 * webhook): the error is tied to the group (`aria-describedby` on the fieldset) and to each box, so a screen reader
 * hears it wherever focus lands.
 */
import type { ComponentChildren } from 'preact';

export interface Choice {
  value: string;
  /** The box's label (text or markup, e.g. `<code>`). */
  label: ComponentChildren;
}

export interface ChoiceGroupProps {
  /** The group's id: boxes are `<id>-<n>`, the hint `<id>-hint`, the error `<id>-error`. */
  id: string;
  legend: string;
  hint?: string | undefined;
  error?: string | undefined;
  choices: readonly Choice[];
  selected: readonly string[];
  onSelected: (values: string[]) => void;
}

export function ChoiceGroup(p: ChoiceGroupProps) {
  const described =
    [p.error ? `${p.id}-error` : '', p.hint ? `${p.id}-hint` : ''].filter(Boolean).join(' ') || undefined;
  const toggle = (value: string, on: boolean) =>
    p.onSelected(on ? [...p.selected, value] : p.selected.filter((v) => v !== value));
  return (
    <fieldset id={p.id} class="field-group choice-group" aria-describedby={described}>
      <legend>{p.legend}</legend>
      {p.hint ? (
        <span id={`${p.id}-hint`} class="hint">
          {p.hint}
        </span>
      ) : null}
      <span id={`${p.id}-error`} class="field-error" hidden={!p.error}>
        {p.error ?? ''}
      </span>
      {p.choices.map((c, i) => (
        <div class="field field-check" key={c.value}>
          <input
            type="checkbox"
            id={`${p.id}-${i}`}
            value={c.value}
            checked={p.selected.includes(c.value)}
            onChange={(e) => toggle(c.value, e.currentTarget.checked)}
            aria-invalid={p.error ? 'true' : undefined}
            aria-describedby={p.error ? `${p.id}-error` : undefined}
          />
          <label for={`${p.id}-${i}`}>{c.label}</label>
        </div>
      ))}
    </fieldset>
  );
}
