/**
 * Page sessions presented by an HttpOnly cookie (docs/console.md, "Sessions"): the cookie holds an opaque `tws_…`
 * reference; only its SHA-256 is stored, beside the claims of the session it stands for, when it ends and whether it
 * was signed out.
 */
import type { Database } from './database.ts';
import { hashToken } from '../kernel/tokens.ts';
import { newId, randomToken } from './ids.ts';

/** The prefix of a page-session reference (the cookie's value). */
export const WEB_SESSION_PREFIX = 'tws_';

/** Which pages a session serves: the console or the buyer pages (each has its own cookie). */
export type WebSessionKind = 'console' | 'buyer';

/** A live page session: its id, the claims of the session it stands for, and when it ends. */
export interface WebSession {
  id: string;
  claims: Record<string, unknown>;
  expiresAt: Date;
}

/** Opens, finds and ends page sessions. */
export class WebSessions {
  private readonly db: Database;

  constructor(db: Database) {
    this.db = db;
  }

  /** Stores a new session and returns its reference (shown once, in the cookie) and id. */
  async open(
    kind: WebSessionKind,
    claims: Record<string, unknown>,
    expiresAt: Date,
    now: Date,
  ): Promise<{ id: string; token: string }> {
    const token = `${WEB_SESSION_PREFIX}${randomToken(32)}`;
    const id = newId('webSession', now);
    await this.db.execute(
      `insert into web_sessions (id, token_hash, kind, claims, expires_at, ended_at, created_at)
       values (?, ?, ?, ?::jsonb, ?, null, ?)`,
      [id, hashToken(token), kind, JSON.stringify(claims), expiresAt, now],
    );
    return { id, token };
  }

  /** The live session a reference stands for: unknown, ended, expired or of another kind is null. */
  async find(token: string, kind: WebSessionKind, now: Date): Promise<WebSession | null> {
    if (!token.startsWith(WEB_SESSION_PREFIX)) return null;
    const [row] = await this.db.execute<{ id: string; claims: Record<string, unknown>; expires_at: string | Date }>(
      `select id, claims, expires_at from web_sessions
        where token_hash = ? and kind = ? and ended_at is null and expires_at > ?`,
      [hashToken(token), kind, now],
    );
    return row ? { id: row.id, claims: row.claims, expiresAt: new Date(row.expires_at) } : null;
  }

  /** Ends a session now (sign-out, or a newer session replacing it); true when it was still live. */
  async end(id: string, now: Date): Promise<boolean> {
    const rows = await this.db.execute(
      'update web_sessions set ended_at = ? where id = ? and ended_at is null returning 1',
      [now, id],
    );
    return rows.length > 0;
  }
}
