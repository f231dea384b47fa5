// The buyer session and the public REST API. The bearer lives only in this module's memory: never in a cookie,
// localStorage or sessionStorage, so closing or reloading the page ends the session on this device.

let bearer = null;
let session = null;
const listeners = new Set();

/** An error answer of the API (`code`, `message`, `details`), or `network` when the server was not reached. */
export class ApiError extends Error {
  constructor(code, message, status, details) {
    super(message);
    this.code = code;
    this.status = status;
    this.details = details ?? {};
  }
}

function changed(reason) {
  for (const fn of listeners) fn(session, reason);
}

/** Calls `fn(session, reason)` whenever the session starts (`signed-in`) or ends (`signed-out`, `expired`). */
export function onSessionChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** The current session: `{ buyerId, email, mode, merchantId, attested, lang, shop }`, or null when signed out. */
export function current() {
  return session;
}

/**
 * Calls the API at `path` (same origin) with the bearer; resolves with the JSON answer or rejects with an ApiError.
 * `withCookies`: only for the OAuth authorize step, whose endpoint also reads the authorization server's own cookie.
 */
export async function api(method, path, body, { withCookies = false } = {}) {
  const headers = { accept: 'application/json' };
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: withCookies ? 'same-origin' : 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError('network', '', 0);
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) {
    if (res.status === 401 && bearer) signOut('expired');
    throw new ApiError(
      typeof data?.code === 'string' ? data.code : 'generic',
      typeof data?.message === 'string' ? data.message : '',
      res.status,
      data?.details,
    );
  }
  return data;
}

/** Takes a session bearer (from sign-in or a merchant's hand-off), reads who it is for, and keeps it in memory. */
export async function adopt(token) {
  bearer = token;
  try {
    const who = await api('GET', '/v1/buyer/session');
    let shop = null;
    if (who.merchantId) shop = await api('GET', `/v1/catalog/shops/${encodeURIComponent(who.merchantId)}`);
    session = { ...who, shop };
  } catch (err) {
    bearer = null;
    session = null;
    throw err;
  }
  changed('signed-in');
  return session;
}

/** Forgets the bearer. */
export function signOut(reason = 'signed-out') {
  const had = bearer !== null;
  bearer = null;
  session = null;
  if (had) changed(reason);
}

/** Sends a call that may outlive the page (`fetch` with keepalive, e.g. on `pagehide`); its answer is not awaited. */
export function sendKeepalive(method, path, body) {
  if (!bearer) return;
  fetch(path, {
    method,
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    credentials: 'omit',
    keepalive: true,
  }).catch(() => {});
}
