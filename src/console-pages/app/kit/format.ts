/** Money, numbers and dates in the console's language. */
import { lang } from '../i18n.ts';

/** An amount in minor units, e.g. 2500 EUR → "€25.00". */
export function money(minor: number, currency: string): string {
  const digits =
    new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  return new Intl.NumberFormat(lang(), { style: 'currency', currency }).format(minor / 10 ** digits);
}

/** A whole number with grouping. */
export function count(n: number): string {
  return new Intl.NumberFormat(lang()).format(n);
}

/** An RFC 3339 instant as a date and time (in `timeZone` when given, e.g. the event's). */
export function when(iso: string | null | undefined, timeZone?: string): string {
  if (!iso) return '';
  return new Intl.DateTimeFormat(lang(), {
    dateStyle: 'medium',
    timeStyle: 'short',
    ...(timeZone ? { timeZone } : {}),
  }).format(new Date(iso));
}
