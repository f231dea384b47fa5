/**
 * undici (about 110 modules), imported on first use: the webhook deliveries and the fetches of other parties'
 * documents load it then, not before the server is ready.
 */

let undici: Promise<typeof import('undici')> | undefined;

/** undici, loaded once per process on the first call. */
export function loadUndici(): Promise<typeof import('undici')> {
  return (undici ??= import('undici'));
}
