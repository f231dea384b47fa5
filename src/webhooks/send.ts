/**
 * One delivery attempt: a signed POST with a timeout, connected only to an allowed address (`url-policy.ts`: an IP
 * literal is checked before connecting, a name by the lookup the socket connects with); the outcome is reduced to a
 * status and an error class (never a socket message, which would tell which local ports are open).
 */
import type { Agent } from 'undici';
import { loadUndici } from './undici.ts';
import { ADDRESS_REFUSED, guardedLookup, hostOf, isAllowedAddress, type AddressPolicy } from './url-policy.ts';
import ipaddr from 'ipaddr.js';

/** How long a receiver has to answer one attempt. */
export const ATTEMPT_TIMEOUT_MS = 10_000;

export interface Message {
  /**
   * The event id (sent as `webhook-id`, or ACP's `Request-Id`: stable across retries, so receivers can de-duplicate).
   */
  id: string;
  /** The exact JSON body that is signed and sent. */
  body: string;
}

export interface AttemptOutcome {
  ok: boolean;
  /** The receiver's HTTP status, when it answered. */
  status: number | null;
  /** A short description of a failure (never the response body, never a secret). */
  error: string | null;
}

/** Where deliveries may connect: the address policy, and the connection pool that enforces it on every connect. */
export class DeliveryTarget {
  readonly policy: AddressPolicy;
  private pool: Promise<Agent> | undefined;
  constructor(policy: AddressPolicy) {
    this.policy = policy;
  }
  /** The connection pool, made (and undici loaded) on the first delivery. */
  agent(): Promise<Agent> {
    return (this.pool ??= loadUndici().then(
      ({ Agent }) => new Agent({ connect: { lookup: guardedLookup(this.policy) } }),
    ));
  }
  async close(): Promise<void> {
    if (this.pool) await (await this.pool).close();
  }
}

/** The error class recorded for a refused address. */
export const REFUSED_ERROR = 'refused: the address is not public';

/** POSTs `message` to `url` with `headers` (its signature included, see signature.ts); never throws. */
export async function sendAttempt(
  target: DeliveryTarget,
  url: string,
  headers: Record<string, string>,
  message: Message,
  stop: AbortSignal,
): Promise<AttemptOutcome> {
  const signal = AbortSignal.any([stop, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]);
  try {
    const host = hostOf(new URL(url));
    // An IP literal is connected to without a lookup: check it here.
    if (ipaddr.isValid(host) && !isAllowedAddress(host, target.policy))
      return { ok: false, status: null, error: REFUSED_ERROR };
    const [{ fetch }, dispatcher] = await Promise.all([loadUndici(), target.agent()]);
    const res = await fetch(url, {
      dispatcher,
      method: 'POST',
      headers,
      body: message.body,
      redirect: 'manual',
      signal,
    });
    await res.body?.cancel().catch(() => undefined);
    if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status, error: null };
    const error =
      res.status >= 300 && res.status < 400 ? `HTTP ${res.status} (redirects are not followed)` : `HTTP ${res.status}`;
    return { ok: false, status: res.status, error };
  } catch (err) {
    return { ok: false, status: null, error: describeFailure(err, stop) };
  }
}

function describeFailure(err: unknown, stop: AbortSignal): string {
  if (stop.aborted) return 'interrupted: the dispatcher stopped';
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return `timeout: no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`;
  }
  const cause = err instanceof Error ? (err.cause as { code?: unknown } | undefined) : undefined;
  if (cause?.code === ADDRESS_REFUSED) return REFUSED_ERROR;
  if (
    cause &&
    typeof cause.code === 'string' &&
    /^(UND_ERR_CONNECT_TIMEOUT|UND_ERR_HEADERS_TIMEOUT|UND_ERR_BODY_TIMEOUT)$/.test(cause.code)
  ) {
    return `timeout: no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`;
  }
  // Refused, reset, unresolvable, TLS: one class, so the log does not map which ports answer.
  return 'connection failed';
}
