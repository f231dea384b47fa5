/**
 * The OAuth authorization server's records (oidc-provider models: clients, grants, codes, tokens, sessions,
 * interactions).
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0014Oauth extends Migration {
  override async up(): Promise<void> {
    // `id_hash` is the SHA-256 of the model's id: for codes and tokens the id is the bearer value itself, so it is
    // never stored in clear (the payload is stored without it). `uid` and `grant_id` are the lookups the library needs.
    this.addSql(`
      create table oauth_records (
        kind text not null,
        id_hash text not null,
        payload jsonb not null,
        grant_id text,
        uid text,
        expires_at timestamptz,
        consumed_at timestamptz,
        primary key (kind, id_hash)
      );
    `);
    this.addSql('create index oauth_records_grant on oauth_records (grant_id) where grant_id is not null;');
    this.addSql('create index oauth_records_uid on oauth_records (uid) where uid is not null;');
    this.addSql('create index oauth_records_expires on oauth_records (expires_at) where expires_at is not null;');
  }
}
