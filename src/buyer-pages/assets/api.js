// The buyer session and the public REST API. A session the buyer opened on these pages lives in an HttpOnly cookie
// this script cannot read (sent only with the X-Tessera-Session header, docs/console.md "Sessions"), so a reload keeps
// it; a merchant's hand-off or a partner's session is a bearer held only in this module's memory (spec §5.5).

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

/** The headers that present the session: the bearer when there is one, else the page session's cookie. */
function credentials() {
  return bearer ? { authorization: `Bearer ${bearer}` } : { 'x-tessera-session': 'buyer' };
}

/**
 * Calls the API at `path` (same origin) with the session; resolves with the JSON answer or rejects with an ApiError.
 * `withCookies`: for the OAuth authorize step, whose endpoint also reads the authorization server's own cookie.
 * `idempotencyKey`: sent as `Idempotency-Key`, for the operations that require one (confirm).
 */
export async function api(method, path, body, { withCookies = false, idempotencyKey } = {}) {
  const headers = { accept: 'application/json', ...credentials() };
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: withCookies || !bearer ? 'same-origin' : 'omit',
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
    if (res.status === 401 && (bearer || session)) signOut('expired');
    throw new ApiError(
      typeof data?.code === 'string' ? data.code : 'generic',
      typeof data?.message === 'string' ? data.message : '',
      res.status,
      data?.details,
    );
  }
  return data;
}

/**
 * Takes a session (a merchant's hand-off bearer, or "" for the page session a sign-in set as a cookie) and reads who it
 * is for.
 */
export async function adopt(token) {
  bearer = token || null;
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

/**
 * At load: the page session kept in the cookie, when there is one (a reload keeps the buyer signed in). Its readable
 * companion cookie says whether to ask, so a signed-out visitor's page makes no call that answers 401.
 */
export async function restore() {
  if (!/(^|;\s*)(__Host-)?tessera_buyer_signed_in=1/.test(document.cookie)) return null;
  try {
    return await adopt('');
  } catch {
    return null;
  }
}

/** Forgets the session; a page session the buyer signs out of is ended on the server too. */
export function signOut(reason = 'signed-out') {
  const had = bearer !== null || session !== null;
  if (reason === 'signed-out' && !bearer && session) sendKeepalive('POST', '/v1/buyer/session/end', {});
  bearer = null;
  session = null;
  if (had) changed(reason);
}

/** Sends a call that may outlive the page (`fetch` with keepalive, e.g. on `pagehide`); its answer is not awaited. */
export function sendKeepalive(method, path, body) {
  if (!bearer && !session) return;
  fetch(path, {
    method,
    headers: { ...credentials(), 'content-type': 'application/json' },
    body: JSON.stringify(body),
    credentials: bearer ? 'omit' : 'same-origin',
    keepalive: true,
  }).catch(() => {});
}
