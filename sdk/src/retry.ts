/**
 * The SDK's retry policy: which refusals a call is sent again after, and how long it waits first.
 */

/**
 * Retries of refusals that ask to be retried later and ran nothing: `429 rate_limited` (a budget spent, or a hot pool
 * at capacity in a flash sale) and `409 idempotency_in_flight` (the same key still running). A retry sends the same
 * call with the same idempotency key, so it can never act twice.
 */
export interface RetryOptions {
  /**
   * How many times a call is sent again at most: a whole number, 0 or more (`createClient` throws a TypeError
   * otherwise).
   */
  retries: number;
  /**
   * The wait in ms before retry `attempt` (1, 2, …), given the server's `retryAfter` in seconds. Default
   * `jitteredDelay`: `retryAfter` plus a random extra of up to as long again, so that clients refused together do not
   * all come back together.
   */
  delay?: (attempt: number, retryAfterSeconds: number) => number;
  /** The longest wait accepted, in ms (default 10,000): a refusal asking for longer is thrown at once. */
  maxDelayMs?: number;
}

/** The default wait before a retry: `retryAfter` seconds, plus a random extra of up to as long again. */
export function jitteredDelay(_attempt: number, retryAfterSeconds: number, random: () => number = Math.random): number {
  return retryAfterSeconds * 1000 * (1 + random());
}

/** The refusals a retry may follow: nothing ran, and the server said when to come back. */
export const RETRYABLE: ReadonlySet<string> = new Set(['rate_limited', 'idempotency_in_flight']);

/** Waits `ms`, or rejects with the signal's reason once it aborts. */
export function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
