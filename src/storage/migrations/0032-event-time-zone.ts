/** Events carry an IANA time zone (e.g. Europe/Budapest), in which buyers see their times; UTC when none was set. */
import { Migration } from '@mikro-orm/migrations';

export class Migration0032EventTimeZone extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table events add column if not exists time_zone text not null default 'UTC';`);
  }
}
