/**
 * The consent view's unfinished setups (one per buyer and shop, kept one day), the `verify_session` code purpose, and
 * an index on embed origins.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0016ConsentDrafts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table consent_drafts (
        buyer_id text not null references buyers(id) on delete cascade deferrable initially deferred,
        merchant_id text not null references shops(id) on delete cascade deferrable initially deferred,
        step text not null check (step in ('agent', 'card', 'limits')),
        data jsonb not null,
        expires_at timestamptz not null,
        updated_at timestamptz not null,
        primary key (buyer_id, merchant_id)
      );
      create index consent_drafts_expires_idx on consent_drafts (expires_at);
      -- CORS preflights ask whether an origin is any shop's embed origin, without a credential: an index answers.
      create index shops_embed_origins_idx on shops using gin (embed_origins);
      alter table verification_challenges drop constraint verification_challenges_purpose_check;
      alter table verification_challenges add constraint verification_challenges_purpose_check
        check (purpose in ('save_card', 'create_agent', 'grant_permission', 'change_agent_card', 'raise_card_cap', 'verify_session'));
    `);
  }
}
