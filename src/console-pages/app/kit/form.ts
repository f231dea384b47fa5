/**
 * A form's field errors: `useForm(fields)` runs a submit through an action and puts each problem at its field, whether
 * the form found it (`throw new FormProblems({ 'tier-price': '…' })`) or the API did (`invalid_input` and
 * `unknown_field` name the input field; `fields` maps it to the form's field id). Focus goes to the first bad field.
 */
import { useState } from 'preact/hooks';
import { errorText, fieldOf, FormProblems } from '../api.ts';
import type { Action } from './feedback.tsx';

export interface Form {
  /** The error text of each field id that has one. */
  errors: Record<string, string>;
  /** Runs `work` through `action`, showing its problems at their fields. Resolves whether it succeeded. */
  submit: (action: Action, work: () => Promise<string | void>) => Promise<boolean>;
}

/** `fields`: API input field (or `code:<error code>`) → the form's field id. */
export function useForm(fields: Record<string, string>): Form {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const submit = (action: Action, work: () => Promise<string | void>) =>
    action.run(async () => {
      setErrors({});
      try {
        return await work();
      } catch (err) {
        const found = err instanceof FormProblems ? err.problems : {};
        const field = fieldOf(err, fields);
        if (field) found[field] = errorText(err);
        setErrors(found);
        const first = Object.keys(found)[0];
        if (first) requestAnimationFrame(() => document.getElementById(first)?.focus());
        throw err;
      }
    });
  return { errors, submit };
}

/** Minor units from a decimal amount typed by a person ("25", "25.5", "25,50"), or undefined when it is not one. */
export function minorOf(text: string, currency: string): number | undefined {
  const digits =
    new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  const clean = text.trim().replace(',', '.');
  if (!/^\d+(\.\d+)?$/.test(clean)) return undefined;
  const [whole, frac = ''] = clean.split('.');
  if (frac.length > digits) return undefined;
  return Number(whole) * 10 ** digits + Number(frac.padEnd(digits, '0') || '0');
}

/** The amount typed back from minor units (for an edit form). */
export function amountOf(minor: number, currency: string): string {
  const digits =
    new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  return (minor / 10 ** digits).toFixed(digits);
}

/** An RFC 3339 instant from a `datetime-local` value (the browser's time zone); '' → null. */
export function instantOf(local: string): string | null {
  if (!local) return null;
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** A `datetime-local` value (the browser's time zone) from an RFC 3339 instant; null → ''. */
export function localOf(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
