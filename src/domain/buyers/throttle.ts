/** Per-address and per-buyer mail throttles, so sign-in links and codes cannot be used to flood someone's inbox. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ToolError } from '../../kernel/errors.ts';
import { sql } from '../../storage/database.ts';

/** At most this many sign-in links per address per window. */
export const SIGN_IN_LINKS_PER_WINDOW = 5;
/** At most this many codes per buyer per window. */
export const CODES_PER_WINDOW = 10;
const WINDOW_MS = 15 * 60_000;

const SOURCES = {
  signIn: {
    text: 'select created_at from sign_in_links where email = ? and created_at > ? order by created_at asc',
    max: SIGN_IN_LINKS_PER_WINDOW,
  },
  code: {
    text: 'select created_at from verification_challenges where buyer_id = ? and created_at > ? order by created_at asc',
    max: CODES_PER_WINDOW,
  },
  consoleSignIn: {
    text: 'select created_at from console_sign_in_links where email = ? and created_at > ? order by created_at asc',
    max: SIGN_IN_LINKS_PER_WINDOW,
  },
} as const;

/**
 * Throws 429 `rate_limited` (with `retryAfter`, the seconds until the oldest counted message leaves the
 * 15-minute window) when `who` already received the maximum number of messages of this kind.
 * `em` must be the transaction that records the message: a transaction-scoped advisory lock on (kind, who) makes
 * concurrent requests count one after another, each seeing the rows the previous one committed.
 */
export async function throttleMail(
  em: EntityManager,
  kind: keyof typeof SOURCES,
  who: string,
  now: Date,
): Promise<void> {
  const source = SOURCES[kind];
  await sql(em, 'select pg_advisory_xact_lock(hashtextextended(?, 0))', [`mail-throttle:${kind}:${who}`]);
  const rows = await sql<{ created_at: Date }>(em, source.text, [who, new Date(now.getTime() - WINDOW_MS)]);
  if (rows.length < source.max) return;
  const oldest = new Date(rows[0]!.created_at).getTime();
  const retryAfter = Math.max(1, Math.ceil((oldest + WINDOW_MS - now.getTime()) / 1000));
  throw new ToolError(
    'rate_limited',
    'Too many e-mails were sent for this; wait before asking again.',
    undefined,
    retryAfter,
  );
}
