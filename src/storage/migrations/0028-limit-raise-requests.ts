/**
 * Limit-raise requests: an agent refused for its buyer's limit (MCP URL elicitation) asks the buyer to raise the
 * permission's per-purchase cap or allowance; the buyer approves or declines on a buyer page within 15 minutes.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0028LimitRaiseRequests extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table if not exists limit_raise_requests (
        id text primary key,
        buyer_id text not null references buyers(id) on delete cascade deferrable initially deferred,
        agent_id text not null references agents(id) on delete cascade deferrable initially deferred,
        permission_id text not null references permissions(id) on delete cascade deferrable initially deferred,
        shop_id text not null,
        reason text not null check (reason in ('over_purchase_cap', 'allowance_exhausted')),
        amount_minor integer not null check (amount_minor >= 0),
        currency text not null,
        per_purchase_cap_minor integer not null,
        allowance_minor integer not null,
        proposed_per_purchase_cap_minor integer not null,
        proposed_allowance_minor integer not null,
        status text not null check (status in ('pending', 'approved', 'declined', 'expired')),
        created_at timestamptz not null,
        expires_at timestamptz not null,
        decided_at timestamptz
      );
      create index if not exists limit_raise_requests_permission on limit_raise_requests (permission_id, created_at);
    `);
  }
}
