/**
 * Page sessions held in an HttpOnly cookie (console and buyer pages): the cookie carries an opaque reference whose
 * SHA-256 alone is stored, with the session's verified claims, its end and whether it was signed out.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0022WebSessions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table if not exists web_sessions (
        id text primary key,
        token_hash text not null unique,
        kind text not null check (kind in ('console', 'buyer')),
        claims jsonb not null,
        expires_at timestamptz not null,
        ended_at timestamptz,
        created_at timestamptz not null
      );
      create index if not exists web_sessions_expires on web_sessions (expires_at);
    `);
  }
}
