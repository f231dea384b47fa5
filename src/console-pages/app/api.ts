/**
 * The console's one way to the API: the project's SDK client (typed operations generated from the tool registry).
 * A view calls `client.call('<tool name>', input)`; a refusal is a TesseraError, shown with `errorText`.
 */
import { createClient, isTesseraError, type TesseraClient } from '@tessera/sdk';
import { has, t } from './i18n.ts';

export type Client = TesseraClient;

/**
 * The client for this origin: the console's cookie session (HttpOnly, set by the sign-in calls made with this client,
 * sent with `X-Tessera-Session: console`), or a bearer `token` when a server answered one instead.
 */
export function makeClient(token?: string): Client {
  return token
    ? createClient({ baseUrl: location.origin, token })
    : createClient({ baseUrl: location.origin, session: 'console' });
}

/** Problems a form found before calling the API: field id → message (shown at each field by `useForm`). */
export class FormProblems extends Error {
  readonly problems: Record<string, string>;
  constructor(problems: Record<string, string>) {
    super('form problems');
    this.problems = problems;
  }
}

/** The text to show for a failed call: the catalog's for its code (`errors.<code>`), else the API's own message. */
export function errorText(err: unknown): string {
  if (err instanceof FormProblems) return t('errors.form');
  if (!isTesseraError(err)) return t('errors.network');
  if (has(`errors.${err.code}`)) return t(`errors.${err.code}`, err.details ?? {});
  return err.message || t('errors.generic');
}

/**
 * The field a refusal concerns, by the input field the API names (`invalid_input`'s problems, `unknown_field`), mapped
 * through `fields` (API field → form field id); undefined when it concerns no field of the form.
 */
export function fieldOf(err: unknown, fields: Record<string, string>): string | undefined {
  if (!isTesseraError(err)) return undefined;
  const details = err.details ?? {};
  const problems = Array.isArray(details.problems) ? (details.problems as { field?: unknown }[]) : [];
  const named = typeof details.field === 'string' ? details.field : problems[0]?.field;
  return typeof named === 'string' ? fields[named] : fields[`code:${err.code}`];
}
