/**
 * Settings (the signing secret), organizations, users, API keys, the catalog (shops, events, pools, tiers) and
 * idempotency keys.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0001Core extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table organizations (
        id text primary key,
        name text not null,
        attestation_enabled boolean not null default false,
        attest_ceiling_minor integer check (attest_ceiling_minor >= 0),
        attest_window_hours integer check (attest_window_hours > 0),
        created_at timestamptz not null
      );
      create table users (
        id text primary key,
        email text not null unique,
        name text,
        is_staff boolean not null default false,
        created_at timestamptz not null
      );
      create table memberships (
        user_id text not null references users(id) on delete cascade deferrable initially deferred,
        organization_id text not null references organizations(id) on delete cascade deferrable initially deferred,
        role text not null check (role in ('owner', 'integrator')),
        invited_by text references users(id) deferrable initially deferred,
        created_at timestamptz not null,
        primary key (user_id, organization_id)
      );
      create table api_keys (
        id text primary key,
        organization_id text not null references organizations(id) on delete cascade deferrable initially deferred,
        name text not null,
        token_hash text not null unique,
        token_prefix text not null,
        scopes text[] not null,
        created_by_user_id text references users(id) deferrable initially deferred,
        created_at timestamptz not null,
        last_used_at timestamptz,
        revoked_at timestamptz
      );
      create index api_keys_org on api_keys (organization_id);
      create table shops (
        id text primary key,
        organization_id text not null references organizations(id) on delete cascade deferrable initially deferred,
        name text not null,
        currency text not null check (currency ~ '^[A-Z]{3}$'),
        discoverable boolean not null default false,
        embed_origins text[] not null default '{}',
        hold_minutes integer not null default 10 check (hold_minutes between 1 and 120),
        fee_per_ticket_minor integer not null default 0 check (fee_per_ticket_minor >= 0),
        payment_provider text not null default 'sandbox',
        created_at timestamptz not null,
        deleted_at timestamptz
      );
      create index shops_org on shops (organization_id);
      create table events (
        id text primary key,
        shop_id text not null references shops(id) on delete cascade deferrable initially deferred,
        title text not null,
        venue text,
        starts_at timestamptz not null,
        ends_at timestamptz,
        created_at timestamptz not null
      );
      create index events_shop on events (shop_id, starts_at);
      create table pools (
        id text primary key,
        shop_id text not null references shops(id) on delete cascade deferrable initially deferred,
        event_id text references events(id) on delete cascade deferrable initially deferred,
        title text,
        capacity integer not null check (capacity >= 0),
        available_count integer not null,
        authority text not null default 'tessera',
        created_at timestamptz not null,
        constraint pools_available_within_capacity check (available_count >= 0 and available_count <= capacity)
      );
      create index pools_shop on pools (shop_id);
      create table tiers (
        id text primary key,
        shop_id text not null references shops(id) on delete cascade deferrable initially deferred,
        event_id text not null references events(id) on delete cascade deferrable initially deferred,
        pool_id text not null references pools(id) on delete cascade deferrable initially deferred,
        name text not null,
        price_minor integer not null check (price_minor >= 0),
        currency text not null check (currency ~ '^[A-Z]{3}$'),
        on_sale_start timestamptz,
        on_sale_end timestamptz,
        max_qty_per_purchase integer check (max_qty_per_purchase >= 1),
        sellable boolean not null default true,
        allowed_geos text[] not null default '{}',
        allowed_schemes text[] not null default '{}',
        created_at timestamptz not null
      );
      create index tiers_event on tiers (event_id);
      create table settings (
        key text primary key,
        value text not null
      );
      create table idempotency_keys (
        scope text not null,
        key text not null,
        request_hash text not null,
        state text not null check (state in ('in_flight', 'done')),
        status integer,
        response jsonb,
        created_at timestamptz not null,
        primary key (scope, key)
      );
    `);
  }
}
