/**
 * UCP order webhooks: a platform's order-webhook URL (from its UCP profile) is a webhook subscription of kind `ucp`
 * (one live per shop and URL); an event may be addressed to one subscription (the platform that placed the order); a
 * UCP checkout session remembers which subscription its order's events go to.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0039UcpOrderWebhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table webhook_subscriptions drop constraint if exists webhook_subscriptions_kind_check;
      alter table webhook_subscriptions
        add constraint webhook_subscriptions_kind_check check (kind in ('merchant', 'acp', 'ucp'));
      create unique index webhook_subscriptions_one_ucp on webhook_subscriptions (shop_id, url)
        where kind = 'ucp' and deleted_at is null;
      alter table webhook_events add column subscription_id text;
      create table ucp_order_webhooks (
        session_id text primary key,
        subscription_id text not null,
        created_at timestamptz not null
      );
    `);
  }
}
