/**
 * Housekeeping run by the sweeper: deletes records past their purpose, in bounded batches, so tables do not grow
 * forever. Idempotency keys live 24 hours (contract.md); a spent mandate jti is kept a day past its mandate's expiry
 * (an expired mandate is refused as expired before its jti is looked at); an A2A task stays readable a day after its
 * last update; a rate-limit counter goes an hour after its window ends; a consent-view draft goes once its day is over;
 * an OAuth record (code, token, grant, interaction, session) goes a day after it expired (it is refused from its expiry
 * on); a page session (the console's or buyer pages' cookie) goes a day after it expired or was signed out. The audit
 * log is kept: nothing here prunes it.
 */
import type { Database } from './database.ts';
import { IDEMPOTENCY_TTL_MS } from './idempotency-store.ts';
import { A2A_TASK_TTL_MS } from './a2a-tasks.ts';
import { RATE_LIMIT_TABLE } from './rate-limits.ts';

export const RETENTION_BATCH = 1000;
const MANDATE_JTI_GRACE_MS = 24 * 60 * 60 * 1000;

export interface RetentionReport {
  idempotencyKeys: number;
  mandateJtis: number;
  a2aTasks: number;
  rateLimits: number;
  /** Consent-view drafts past their day (src/domain/buyers/consent-drafts.ts: reads already ignore them). */
  consentDrafts: number;
  oauthRecords: number;
  /** Page sessions a day past their end or their sign-out (src/storage/web-sessions.ts). */
  webSessions: number;
}

/** Deletes up to `limit` rows of each kind that are past their retention at `now`. */
export async function pruneExpired(db: Database, now: Date, limit = RETENTION_BATCH): Promise<RetentionReport> {
  const keys = await db.execute(
    `delete from idempotency_keys where ctid in (
       select ctid from idempotency_keys where created_at < ? and state = 'done' limit ?) returning 1`,
    [new Date(now.getTime() - IDEMPOTENCY_TTL_MS), limit],
  );
  const jtis = await db.execute(
    'delete from mandate_jtis where ctid in (select ctid from mandate_jtis where expires_at < ? limit ?) returning 1',
    [new Date(now.getTime() - MANDATE_JTI_GRACE_MS), limit],
  );
  const tasks = await db.execute(
    'delete from a2a_tasks where ctid in (select ctid from a2a_tasks where updated_at < ? limit ?) returning 1',
    [new Date(now.getTime() - A2A_TASK_TTL_MS), limit],
  );
  // Rate-limit counters carry their window's end in epoch milliseconds (rate-limiter-flexible's format).
  const counters = await db.execute(
    `delete from ${RATE_LIMIT_TABLE} where ctid in (select ctid from ${RATE_LIMIT_TABLE} where expire < ? limit ?) returning 1`,
    [now.getTime() - 60 * 60 * 1000, limit],
  );
  const drafts = await db.execute(
    'delete from consent_drafts where ctid in (select ctid from consent_drafts where expires_at <= ? limit ?) returning 1',
    [now, limit],
  );
  const oauth = await db.execute(
    'delete from oauth_records where ctid in (select ctid from oauth_records where expires_at < ? limit ?) returning 1',
    [new Date(now.getTime() - 24 * 60 * 60 * 1000), limit],
  );
  const dayAgo = new Date(now.getTime() - 24 * 60 * 60 * 1000);
  const pages = await db.execute(
    `delete from web_sessions where ctid in (
       select ctid from web_sessions where expires_at < ? or ended_at < ? limit ?) returning 1`,
    [dayAgo, dayAgo, limit],
  );
  return {
    idempotencyKeys: keys.length,
    mandateJtis: jtis.length,
    a2aTasks: tasks.length,
    rateLimits: counters.length,
    consentDrafts: drafts.length,
    oauthRecords: oauth.length,
    webSessions: pages.length,
  };
}
