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
        created_at timestamptz not null,
        dispatched_at timestamptz
      );
      create index webhook_events_shop on webhook_events (shop_id, created_at);
      create index webhook_events_undispatched on webhook_events (created_at, id) where dispatched_at is null;
      create table webhook_subscriptions (
        id text primary key,
        shop_id text not null references shops(id) on delete cascade deferrable initially deferred,
        url text not null,
        events text[] not null check (cardinality(events) > 0),
        secret_sealed text not null,
        created_at timestamptz not null,
        deleted_at timestamptz
      );
      create index webhook_subscriptions_shop on webhook_subscriptions (shop_id) where deleted_at is null;
      create table webhook_deliveries (
        id text primary key,
        event_id text not null references webhook_events(id) on delete cascade deferrable initially deferred,
        subscription_id text not null references webhook_subscriptions(id) on delete cascade deferrable initially deferred,
        status text not null check (status in ('pending', 'delivered', 'failed', 'cancelled')),
        attempts integer not null default 0 check (attempts >= 0),
        next_attempt_at timestamptz,
        last_attempt_at timestamptz,
        last_status integer,
        last_error text,
        delivered_at timestamptz,
        created_at timestamptz not null,
        constraint webhook_deliveries_once unique (event_id, subscription_id)
      );
      create index webhook_deliveries_due on webhook_deliveries (next_attempt_at, id) where status = 'pending';
      create index webhook_deliveries_subscription on webhook_deliveries (subscription_id, id);
    `);
  }
}
