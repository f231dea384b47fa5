/** ACP: checkout sessions (each over one spine reservation) and the sandbox vault's delegated payment tokens. */
import { Migration } from '@mikro-orm/migrations';

export class Migration0006Acp extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table acp_checkout_sessions (
        id text primary key,
        shop_id text not null references shops(id) on delete cascade deferrable initially deferred,
        organization_id text not null,
        owner_key text not null,
        buyer_id text,
        api_version text not null,
        status text not null check (status in ('not_ready_for_payment', 'ready_for_payment', 'complete_in_progress',
          'completed', 'canceled', 'expired')),
        currency text not null check (currency ~ '^[A-Z]{3}$'),
        tier_id text not null references tiers(id) on delete cascade deferrable initially deferred,
        quantity integer not null check (quantity >= 1),
        reservation_id text references reservations(id) on delete set null deferrable initially deferred,
        order_id text,
        buyer jsonb,
        fulfillment_details jsonb,
        capabilities jsonb not null default '{}'::jsonb,
        messages jsonb not null default '[]'::jsonb,
        locale text,
        timezone text,
        order_notes text,
        metadata jsonb,
        intent_trace jsonb,
        payment_token_id text,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        completed_at timestamptz,
        canceled_at timestamptz
      );
      create index acp_checkout_sessions_reservation on acp_checkout_sessions (reservation_id);
      create index acp_checkout_sessions_owner on acp_checkout_sessions (organization_id, owner_key);
      create table acp_vault_tokens (
        id text primary key,
        owner_key text not null,
        payment_method text not null,
        brand text not null,
        last4 text not null,
        funding_type text not null check (funding_type in ('credit', 'debit', 'prepaid')),
        max_amount integer not null check (max_amount >= 0),
        currency text not null check (currency ~ '^[a-z]{3}$'),
        checkout_session_id text not null,
        merchant_id text not null,
        expires_at timestamptz not null,
        metadata jsonb not null default '{}'::jsonb,
        created_at timestamptz not null,
        used_at timestamptz,
        used_by_session text
      );
    `);
  }
}
