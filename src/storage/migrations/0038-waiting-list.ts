/** Waiting lists: per tier on or off and how long an offer holds places; the entries, in the order
 * they joined (`line_no`). */
import { Migration } from '@mikro-orm/migrations';

export class Migration0038WaitingList extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table tiers add column if not exists waiting_list boolean not null default true;`);
    this.addSql(
      `alter table tiers add column if not exists waiting_list_offer_minutes integer
         check (waiting_list_offer_minutes between 1 and 10080);`,
    );
    this.addSql(`
      create table if not exists waiting_list_entries (
        id text primary key,
        line_no bigint generated always as identity,
        shop_id text not null,
        organization_id text not null,
        event_id text not null,
        tier_id text not null,
        pool_id text not null,
        person_key text not null,
        owner_key text not null,
        buyer_id text,
        email text,
        lang text,
        quantity integer not null check (quantity >= 1),
        state text not null
          check (state in ('waiting', 'offered', 'purchased', 'expired', 'declined', 'left', 'removed')),
        reservation_id text,
        offer_mailed boolean not null default false,
        joined_at timestamptz not null,
        offered_at timestamptz,
        ended_at timestamptz,
        updated_at timestamptz not null
      );`);
    // One active entry per tier and person (join is idempotent); the next in line of a pool; a tier's list in order.
    this.addSql(`create unique index if not exists waiting_list_entries_active
      on waiting_list_entries (tier_id, person_key) where state in ('waiting', 'offered');`);
    this.addSql(`create index if not exists waiting_list_entries_next
      on waiting_list_entries (pool_id, line_no) where state = 'waiting';`);
    this.addSql(`create index if not exists waiting_list_entries_tier on waiting_list_entries (tier_id, line_no);`);
    this.addSql(`create index if not exists waiting_list_entries_reservation
      on waiting_list_entries (reservation_id) where reservation_id is not null;`);
    this.addSql(`create index if not exists waiting_list_entries_mail
      on waiting_list_entries (offered_at) where state = 'offered' and not offer_mailed;`);
  }
}
