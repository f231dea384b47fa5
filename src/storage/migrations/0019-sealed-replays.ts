/** Replayed responses that carry a secret (an API key, an agent token, a session) are kept sealed, not in clear. */
import { Migration } from '@mikro-orm/migrations';

export class Migration0019SealedReplays extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table idempotency_keys add column response_sealed text;`);
  }
}
