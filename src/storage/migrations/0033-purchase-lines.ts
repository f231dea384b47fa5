/**
 * Several lines in one purchase: a quote and its hold may carry `lines` (jsonb, one entry per tier: tier, pool,
 * quantity, unit price, subtotal, and on a hold the places refunds gave back), written only by multi-line purchases;
 * a single-tier purchase keeps `lines` null and its row's own tier, pool and quantity. `reservation_pool_lines` gives
 * every hold's places per pool either way, for whatever counts held and sold places per pool. A checkout session
 * (ACP, UCP) with several line items keeps them in its own `lines` (tier and quantity each).
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0033PurchaseLines extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table quotes add column if not exists lines jsonb;`);
    this.addSql(`alter table reservations add column if not exists lines jsonb;`);
    this.addSql(`alter table acp_checkout_sessions add column if not exists lines jsonb;`);
    this.addSql(`create index if not exists reservations_multi_line on reservations (state) where lines is not null;`);
    this.addSql(
      `create or replace view reservation_pool_lines as
         select r.id as reservation_id, r.state, r.pool_id, r.tier_id, r.quantity, r.returned_count
           from reservations r where r.lines is null
         union all
         select r.id, r.state, l."poolId", l."tierId", l.quantity, coalesce(l."returnedCount", 0)
           from reservations r
          cross join lateral jsonb_to_recordset(r.lines)
                as l("poolId" text, "tierId" text, quantity int, "returnedCount" int)
          where r.lines is not null;`,
    );
  }
}
