/** The console's order page: a resent tickets e-mail (`resend`), the address each e-mail went to, per-order reads. */
import { Migration } from '@mikro-orm/migrations';

export class Migration0024OrderMailResend extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table order_mail drop constraint if exists order_mail_kind_check;
      alter table order_mail add constraint order_mail_kind_check check (kind in ('confirmation', 'refund', 'resend'));
      alter table order_mail add column if not exists sent_to text;
      create index if not exists order_mail_order on order_mail (order_id, created_at);
    `);
  }
}
