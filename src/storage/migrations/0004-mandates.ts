/**
 * Signed mandates: the jtis already spent, one row per (network, jti, recurrence period), unique so a replay cannot
 * commit.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0004Mandates extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table mandate_jtis (
        network text not null,
        jti text not null,
        period text not null,
        mandate_id text not null,
        merchant_id text not null,
        reference text,
        used_at timestamptz not null,
        expires_at timestamptz not null,
        constraint mandate_jtis_unique primary key (network, jti, period)
      );
      create index mandate_jtis_expiry on mandate_jtis (expires_at);
    `);
  }
}
