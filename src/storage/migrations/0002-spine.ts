/**
 * The purchase spine: quotes, reservations (holds), payments, orders, tickets, provider events and the sandbox
 * provider's ledger.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0002Spine extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table quotes (
        id text primary key,
        shop_id text not null references shops(id) on delete cascade deferrable initially deferred,
        organization_id text not null,
        event_id text not null,
        tier_id text not null references tiers(id) on delete cascade deferrable initially deferred,
        pool_id text not null references pools(id) on delete cascade deferrable initially deferred,
        quantity integer not null check (quantity >= 1),
        country text,
        scheme text,
        unit_price_minor integer not null check (unit_price_minor >= 0),
        fees_minor integer not null check (fees_minor >= 0),
        total_minor integer not null check (total_minor >= 0),
        currency text not null check (currency ~ '^[A-Z]{3}$'),
        owner_key text not null,
        buyer_id text,
        reservation_id text unique,
        expires_at timestamptz not null,
        created_at timestamptz not null
      );
      create table reservations (
        id text primary key,
        shop_id text not null references shops(id) on delete cascade deferrable initially deferred,
        organization_id text not null,
        event_id text not null,
        tier_id text not null references tiers(id) on delete cascade deferrable initially deferred,
        pool_id text not null references pools(id) on delete cascade deferrable initially deferred,
        quote_id text not null unique references quotes(id) on delete cascade deferrable initially deferred,
        quantity integer not null check (quantity >= 1),
        unit_price_minor integer not null check (unit_price_minor >= 0),
        fees_minor integer not null check (fees_minor >= 0),
        total_minor integer not null check (total_minor >= 0),
        currency text not null check (currency ~ '^[A-Z]{3}$'),
        state text not null check (state in ('held', 'confirming', 'completed', 'released')),
        release_reason text check (release_reason in ('buyer', 'expired', 'payment_failed')),
        hold_expires_at timestamptz not null,
        expires_at timestamptz not null,
        payment_deadline timestamptz,
        owner_key text not null,
        buyer_id text,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        completed_at timestamptz,
        released_at timestamptz
      );
      create index reservations_due on reservations (expires_at) where state in ('held', 'confirming');
      create index reservations_pool_state on reservations (pool_id, state);
      create table payments (
        id text primary key,
        shop_id text not null references shops(id) on delete cascade deferrable initially deferred,
        organization_id text not null,
        reservation_id text not null references reservations(id) on delete cascade deferrable initially deferred,
        attempt integer not null check (attempt >= 1),
        provider text not null,
        payment_method text not null,
        scheme text not null,
        amount_minor integer not null check (amount_minor >= 0),
        currency text not null check (currency ~ '^[A-Z]{3}$'),
        state text not null check (state in ('pending', 'succeeded', 'failed', 'refunded')),
        failure_code text,
        provider_reference text,
        refund_due boolean not null default false,
        refund_reason text,
        refund_reference text,
        owner_key text not null,
        buyer_id text,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        refunded_at timestamptz
      );
      create unique index payments_attempt on payments (reservation_id, attempt);
      create unique index payments_one_pending on payments (reservation_id) where state = 'pending';
      create unique index payments_provider_reference on payments (provider, provider_reference);
      create index payments_refund_due on payments (updated_at) where refund_due;
      create table orders (
        id text primary key,
        shop_id text not null references shops(id) on delete cascade deferrable initially deferred,
        organization_id text not null,
        reservation_id text not null unique references reservations(id) on delete cascade deferrable initially deferred,
        payment_id text not null unique references payments(id) on delete cascade deferrable initially deferred,
        event_id text not null,
        tier_id text not null,
        quantity integer not null check (quantity >= 1),
        total_minor integer not null check (total_minor >= 0),
        currency text not null check (currency ~ '^[A-Z]{3}$'),
        state text not null check (state in ('completed', 'refunded')),
        refund_reason text,
        owner_key text not null,
        buyer_id text,
        created_at timestamptz not null,
        refunded_at timestamptz
      );
      create table tickets (
        id text primary key,
        order_id text not null references orders(id) on delete cascade deferrable initially deferred,
        tier_id text not null,
        code text not null unique,
        created_at timestamptz not null
      );
      create index tickets_order on tickets (order_id);
      create table provider_events (
        provider text not null,
        id text not null,
        type text not null,
        payment_id text,
        received_at timestamptz not null,
        primary key (provider, id)
      );
      create table sandbox_charges (
        id text primary key,
        payment_reference text not null unique,
        payment_method text not null,
        amount_minor integer not null,
        currency text not null,
        outcome text not null check (outcome in ('succeeded', 'failed')),
        failure_code text,
        state text not null check (state in ('pending', 'succeeded', 'failed', 'refunded')),
        settle_at timestamptz,
        event_id text unique,
        delivery_attempts integer not null default 0,
        next_delivery_at timestamptz,
        delivered_at timestamptz,
        refund_id text,
        created_at timestamptz not null,
        settled_at timestamptz,
        refunded_at timestamptz
      );
      create index sandbox_charges_due on sandbox_charges (settle_at) where state = 'pending';
      create index sandbox_charges_undelivered on sandbox_charges (next_delivery_at)
        where event_id is not null and delivered_at is null;
    `);
  }
}
