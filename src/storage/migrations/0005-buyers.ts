/**
 * Buyers and agents: sign-in links, emailed codes, agents, saved cards (setups, instruments), permissions, spends, the
 * mail outbox.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0005Buyers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table buyers (
        id text primary key,
        email text not null unique,
        lang text,
        created_at timestamptz not null
      );
      create table sign_in_links (
        id text primary key,
        token_hash text not null unique,
        email text not null,
        merchant_id text references shops(id) on delete cascade deferrable initially deferred,
        lang text,
        expires_at timestamptz not null,
        used_at timestamptz,
        created_at timestamptz not null
      );
      create table verification_challenges (
        id text primary key,
        buyer_id text not null references buyers(id) on delete cascade deferrable initially deferred,
        purpose text not null check (purpose in ('save_card', 'create_agent', 'grant_permission', 'change_agent_card', 'raise_card_cap')),
        code_hash text not null,
        attempts integer not null default 0 check (attempts >= 0),
        max_attempts integer not null check (max_attempts > 0),
        expires_at timestamptz not null,
        used_at timestamptz,
        created_at timestamptz not null
      );
      create index verification_challenges_buyer on verification_challenges (buyer_id, created_at);
      create table agents (
        id text primary key,
        buyer_id text not null references buyers(id) on delete cascade deferrable initially deferred,
        name text not null,
        credential text not null check (credential in ('issued', 'key')),
        token_hash text unique,
        token_prefix text,
        public_jwk jsonb,
        status text not null check (status in ('active', 'paused', 'deleted')),
        created_at timestamptz not null,
        updated_at timestamptz not null,
        constraint agents_credential_shape check (
          (credential = 'issued' and token_hash is not null and public_jwk is null)
          or (credential = 'key' and token_hash is null and public_jwk is not null))
      );
      create index agents_buyer on agents (buyer_id, created_at);
      create table card_setups (
        id text primary key,
        buyer_id text not null references buyers(id) on delete cascade deferrable initially deferred,
        shop_id text not null references shops(id) on delete cascade deferrable initially deferred,
        provider text not null,
        status text not null check (status in ('pending', 'succeeded', 'failed')),
        payment_method text,
        scheme text,
        last4 text,
        failure_code text,
        attempts integer not null default 0,
        instrument_id text,
        expires_at timestamptz not null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create table instruments (
        id text primary key,
        buyer_id text not null references buyers(id) on delete cascade deferrable initially deferred,
        shop_id text not null references shops(id) on delete cascade deferrable initially deferred,
        provider text not null,
        setup_id text not null unique references card_setups(id) deferrable initially deferred,
        payment_method text not null,
        scheme text not null,
        last4 text not null,
        spending_cap_minor integer not null check (spending_cap_minor >= 0),
        currency text not null check (currency ~ '^[A-Z]{3}$'),
        created_at timestamptz not null,
        deleted_at timestamptz
      );
      create index instruments_buyer on instruments (buyer_id, shop_id);
      create table permissions (
        id text primary key,
        buyer_id text not null references buyers(id) on delete cascade deferrable initially deferred,
        agent_id text not null references agents(id) on delete cascade deferrable initially deferred,
        shop_id text not null references shops(id) on delete cascade deferrable initially deferred,
        organization_id text not null,
        instrument_id text not null references instruments(id) deferrable initially deferred,
        currency text not null check (currency ~ '^[A-Z]{3}$'),
        per_purchase_cap_minor integer not null check (per_purchase_cap_minor >= 0),
        allowance_minor integer not null check (allowance_minor >= 0),
        window_hours integer not null check (window_hours between 1 and 8760),
        expires_at timestamptz not null,
        label text,
        attested boolean not null default false,
        created_at timestamptz not null,
        revoked_at timestamptz,
        revoked_reason text,
        revoked_by text
      );
      create index permissions_agent_shop on permissions (agent_id, shop_id, created_at);
      create index permissions_org on permissions (organization_id, created_at) where attested;
      create table permission_spends (
        id text primary key,
        permission_id text not null references permissions(id) on delete cascade deferrable initially deferred,
        agent_id text not null,
        buyer_id text not null,
        shop_id text not null,
        organization_id text not null,
        attested boolean not null,
        amount_minor integer not null check (amount_minor >= 0),
        currency text not null,
        reservation_id text not null unique,
        created_at timestamptz not null
      );
      create index permission_spends_agent on permission_spends (agent_id, shop_id, created_at);
      create index permission_spends_attested on permission_spends (organization_id, buyer_id, created_at) where attested;
      create table mail_outbox (
        id text primary key,
        to_address text not null,
        subject text not null,
        text_body text not null,
        created_at timestamptz not null
      );
      create index mail_outbox_to on mail_outbox (to_address, created_at);
    `);
  }
}
