/**
 * A checkout session's hold in flight: create and update commit the session with its quote, the reserve batcher holds
 * the places in a transaction of its own, and the session takes the hold only if it still waits for that quote
 * (`hold_quote_id`); a session changed or canceled meanwhile gives the hold back (src/domain/acp/session-hold.ts).
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0042SessionHoldQuote extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table acp_checkout_sessions add column hold_quote_id text;');
  }
}
