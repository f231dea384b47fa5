/** CSV exports: a short-lived, single-use download whose token is kept only as its SHA-256. */
import { Migration } from '@mikro-orm/migrations';

export class Migration0025Exports extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table if not exists export_downloads (
        id text primary key,
        token_hash text not null unique,
        organization_id text not null,
        shop_id text not null references shops(id) on delete cascade deferrable initially deferred,
        kind text not null check (kind in ('orders', 'tickets')),
        filter jsonb not null,
        expires_at timestamptz not null,
        used_at timestamptz,
        created_at timestamptz not null
      );
      create index if not exists export_downloads_expiry on export_downloads (expires_at);
    `);
  }
}
