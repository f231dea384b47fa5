/**
 * ACP order webhooks: a shop's agent-platform endpoint is a webhook subscription of kind `acp` (at most one live per
 * shop).
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0018AcpOrderWebhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table webhook_subscriptions
        add column kind text not null default 'merchant' check (kind in ('merchant', 'acp'));
      create unique index webhook_subscriptions_one_acp on webhook_subscriptions (shop_id) where kind = 'acp' and deleted_at is null;
    `);
  }
}
