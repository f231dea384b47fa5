/**
 * Rate-limit counters in PostgreSQL, so every server process shares one budget (the table RateLimiterPostgres expects).
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0009bRateLimits extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table rate_limits (key varchar(255) primary key, points integer not null default 0, expire bigint);',
    );
    this.addSql('create index rate_limits_expire on rate_limits (expire);');
  }
}
