/**
 * The console's one way to the API: the project's SDK client (typed operations generated from the tool registry).
 * A view calls `client.call('<tool name>', input)`; a refusal is a TesseraError, shown with `errorText`.
 */
import { createClient, isTesseraError, type TesseraClient } from '@tessera/sdk';
import { has, t } from './i18n.ts';

export type Client = TesseraClient;

/** A client for this origin, acting with the console session `token` (none: public operations only). */
export function makeClient(token?: string): Client {
  return createClient({ baseUrl: location.origin, ...(token ? { token } : {}) });
}

/** The text to show for a failed call: the catalog's for its code (`errors.<code>`), else the API's own message. */
export function errorText(err: unknown): string {
  if (!isTesseraError(err)) return t('errors.network');
  if (has(`errors.${err.code}`)) return t(`errors.${err.code}`);
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
