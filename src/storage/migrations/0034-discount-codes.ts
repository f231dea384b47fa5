/**
 * Discount codes: a shop's codes (percent or fixed, for some tiers or all, use limits, a validity window) with their
 * live use count, one use row per hold that took a use, and on quotes and holds the code applied and its amount.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0034DiscountCodes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table if not exists discount_codes (
      id text primary key,
      shop_id text not null references shops(id),
      organization_id text not null,
      code text not null,
      kind text not null check (kind in ('percent', 'fixed')),
      percent_off int check (percent_off between 1 and 100),
      amount_off_minor int check (amount_off_minor > 0),
      currency text,
      tier_ids jsonb,
      max_uses int check (max_uses > 0),
      max_uses_per_buyer int check (max_uses_per_buyer > 0),
      starts_at timestamptz,
      ends_at timestamptz,
      refund_returns_use boolean not null default false,
      uses int not null default 0 check (uses >= 0),
      disabled_at timestamptz,
      deleted_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );`);
    this.addSql(
      `create unique index if not exists discount_codes_shop_code on discount_codes (shop_id, code) where deleted_at is null;`,
    );
    this.addSql(`create table if not exists discount_uses (
      reservation_id text primary key,
      code_id text not null references discount_codes(id),
      buyer_key text,
      state text not null check (state in ('held', 'returned')),
      created_at timestamptz not null,
      updated_at timestamptz not null
    );`);
    this.addSql(
      `create index if not exists discount_uses_buyer on discount_uses (code_id, buyer_key) where state = 'held';`,
    );
    this.addSql(`alter table quotes add column if not exists discount_code_id text;`);
    this.addSql(`alter table quotes add column if not exists discount_minor int;`);
    this.addSql(`alter table quotes add column if not exists discount_buyer_key text;`);
    this.addSql(`alter table reservations add column if not exists discount_code_id text;`);
    this.addSql(`alter table reservations add column if not exists discount_minor int;`);
  }
}
