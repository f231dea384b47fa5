/** The buyer's order e-mails (confirmation with tickets and receipt, refund), queued with the change they describe. */
import { Migration } from '@mikro-orm/migrations';

export class Migration0011bOrderMail extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table order_mail (
        id text primary key,
        kind text not null check (kind in ('confirmation', 'refund')),
        order_id text not null references orders(id) on delete cascade deferrable initially deferred,
        refund_id text references refunds(id) on delete cascade deferrable initially deferred,
        attempts integer not null default 0,
        next_attempt_at timestamptz not null,
        sent_at timestamptz,
        created_at timestamptz not null
      );
      create unique index order_mail_confirmation on order_mail (order_id) where kind = 'confirmation';
      create unique index order_mail_refund on order_mail (refund_id) where kind = 'refund';
      create index order_mail_due on order_mail (next_attempt_at) where sent_at is null;
    `);
  }
}
