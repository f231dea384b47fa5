/**
 * A shop's settings for a payment provider other than the sandbox: public parts in clear, secrets sealed (AES-256-GCM).
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0013cPaymentProviderSettings extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table payment_provider_settings (
        shop_id text not null references shops(id) on delete cascade deferrable initially deferred,
        provider text not null,
        settings jsonb not null,
        secrets_sealed text not null,
        configured_by text not null,
        configured_at timestamptz not null,
        updated_at timestamptz not null,
        primary key (shop_id, provider)
      );
    `);
  }
}
