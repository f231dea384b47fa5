/** Retention: an index so idempotency keys past their 24-hour window can be deleted in batches. */
import { Migration } from '@mikro-orm/migrations';

export class Migration0008Retention extends Migration {
  override async up(): Promise<void> {
    this.addSql('create index idempotency_keys_created on idempotency_keys (created_at);');
  }
}
