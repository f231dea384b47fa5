/** Merchant webhooks: the transactional outbox of domain events, subscriptions and the delivery log. */
import { Migration } from '@mikro-orm/migrations';

export class Migration0003Webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table webhook_events (
        id text primary key,
        shop_id text not null references shops(id) on delete cascade deferrable initially deferred,
        type text not null,
        data jsonb not null,
        created_at timestamptz not null
      );
      create index webhook_events_shop on webhook_events (shop_id, created_at);
    `);
  }
}
