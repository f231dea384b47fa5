/** One delivery attempt: a signed POST with a timeout; the outcome is reduced to a status and a short, secret-free error. */
import { webhookHeaders } from './signature.ts';

/** How long a receiver has to answer one attempt. */
export const ATTEMPT_TIMEOUT_MS = 10_000;

export interface Message {
  /** The event id, sent as `webhook-id` (stable across retries, so receivers can de-duplicate). */
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

/** POSTs `message` to `url`, signed with `secret` at `timestampSeconds`; never throws. */
export async function sendAttempt(
  url: string,
  secret: string,
  message: Message,
  timestampSeconds: number,
  stop: AbortSignal,
): Promise<AttemptOutcome> {
  const signal = AbortSignal.any([stop, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]);
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: webhookHeaders(secret, message.id, timestampSeconds, message.body),
      body: message.body,
      redirect: 'manual',
      signal,
    });
    await res.body?.cancel().catch(() => undefined);
    if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status, error: null };
    const error = res.status >= 300 && res.status < 400 ? `HTTP ${res.status} (redirects are not followed)` : `HTTP ${res.status}`;
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
  if (cause && typeof cause.code === 'string') return `network error: ${cause.code}`;
  return 'network error';
}
