/** Attendees and questions (issue #37 item 3): a tier's attendee form, a hold's answers, each ticket's attendee. */
import { Migration } from '@mikro-orm/migrations';

export class Migration0035Attendees extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table tiers add column if not exists attendee_form jsonb;`);
    this.addSql(`alter table reservations add column if not exists attendees jsonb;`);
    this.addSql(`alter table tickets add column if not exists attendee_name text;`);
    this.addSql(`alter table tickets add column if not exists attendee_answers jsonb;`);
  }
}
