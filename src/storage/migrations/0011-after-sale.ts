/**
 * After the sale: order listing indexes, partial refunds (ours and the sandbox provider's), ticket states, signed
 * ticket codes and check-in.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0011AfterSale extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table orders drop constraint orders_state_check;
      alter table orders add constraint orders_state_check check (state in ('completed', 'partially_refunded', 'refunded'));
      alter table orders add column refunded_minor integer not null default 0;
      update orders set refunded_minor = total_minor where state = 'refunded';
      alter table orders add constraint orders_refunded_within_total check (refunded_minor >= 0 and refunded_minor <= total_minor);
      create index orders_org on orders (organization_id, id);
      create index orders_shop on orders (shop_id, id);
      create index orders_event on orders (event_id, id);
      create index orders_owner on orders (owner_key, id);
      create index orders_buyer on orders (buyer_id, id) where buyer_id is not null;

      alter table reservations add column returned_count integer not null default 0;
      alter table reservations add constraint reservations_returned_within_quantity check (returned_count >= 0 and returned_count <= quantity);

      alter table tickets add column event_id text;
      update tickets t set event_id = o.event_id from orders o where o.id = t.order_id;
      alter table tickets alter column event_id set not null;
      alter table tickets add column state text not null default 'valid' check (state in ('valid', 'void'));
      alter table tickets add column refund_id text;
      alter table tickets add column void_reason text;
      alter table tickets add column voided_at timestamptz;
      alter table tickets add column signing_key_id text;
      alter table tickets add column signed_code text unique;
      alter table tickets add column checked_in_at timestamptz;
      alter table tickets add column checked_in_device text;
      create index tickets_event on tickets (event_id, id);
      create index tickets_event_voided on tickets (event_id, voided_at) where state = 'void';

      create table refunds (
        id text primary key,
        shop_id text not null references shops(id) on delete cascade deferrable initially deferred,
        organization_id text not null,
        owner_key text not null,
        buyer_id text,
        order_id text not null references orders(id) on delete cascade deferrable initially deferred,
        payment_id text not null references payments(id) on delete cascade deferrable initially deferred,
        ticket_ids jsonb not null,
        amount_minor integer not null check (amount_minor >= 0),
        currency text not null check (currency ~ '^[A-Z]{3}$'),
        reason text not null,
        return_to_pool boolean not null,
        state text not null check (state in ('pending', 'succeeded', 'failed')),
        failure_code text,
        provider_reference text,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        settled_at timestamptz
      );
      create index refunds_order on refunds (order_id, id);
      create index refunds_unanswered on refunds (created_at) where state = 'pending' and provider_reference is null;

      create table sandbox_refunds (
        id text primary key,
        charge_id text not null references sandbox_charges(id),
        refund_reference text not null unique,
        amount_minor integer not null check (amount_minor >= 0),
        outcome text not null check (outcome in ('succeeded', 'failed')),
        state text not null check (state in ('pending', 'succeeded', 'failed')),
        settle_at timestamptz,
        event_id text unique,
        delivery_attempts integer not null default 0,
        next_delivery_at timestamptz,
        delivered_at timestamptz,
        created_at timestamptz not null,
        settled_at timestamptz
      );
      create index sandbox_refunds_charge on sandbox_refunds (charge_id);
      create index sandbox_refunds_due on sandbox_refunds (settle_at) where state = 'pending';
      create index sandbox_refunds_undelivered on sandbox_refunds (next_delivery_at) where event_id is not null and delivered_at is null;

      create table ticket_signing_keys (
        kid text primary key,
        alg text not null,
        public_jwk jsonb not null,
        private_jwk_sealed text not null,
        created_at timestamptz not null,
        retired_at timestamptz
      );
      create unique index ticket_signing_keys_one_active on ticket_signing_keys ((true)) where retired_at is null;
    `);
  }
}
