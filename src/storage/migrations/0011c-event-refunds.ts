/** The background job that refunds every order of a cancelled event, once each, surviving restarts. */
import { Migration } from '@mikro-orm/migrations';

export class Migration0011cEventRefunds extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table event_refund_jobs (
        event_id text primary key,
        shop_id text not null references shops(id) on delete cascade deferrable initially deferred,
        organization_id text not null,
        reason text not null,
        return_to_pool boolean not null,
        state text not null check (state in ('running', 'done')),
        started_at timestamptz not null,
        finished_at timestamptz
      );
      create table event_refund_items (
        event_id text not null references event_refund_jobs(event_id) on delete cascade deferrable initially deferred,
        order_id text not null references orders(id) on delete cascade deferrable initially deferred,
        state text not null check (state in ('pending', 'refunded', 'failed', 'skipped')),
        refund_id text references refunds(id) deferrable initially deferred,
        attempts integer not null default 0,
        lease_until timestamptz,
        updated_at timestamptz not null,
        primary key (event_id, order_id)
      );
      create index event_refund_items_pending on event_refund_items (lease_until) where state = 'pending';
    `);
  }
}
