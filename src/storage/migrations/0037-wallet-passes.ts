/**
 * A shop's wallet-pass settings (Apple Wallet, Google Wallet): the public parts in clear, the merchant's signing key
 * (and certificates) sealed with AES-256-GCM; no row means off, the default.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0037WalletPasses extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table if not exists wallet_pass_settings (
        shop_id text not null references shops(id) on delete cascade deferrable initially deferred,
        wallet text not null check (wallet in ('apple', 'google')),
        settings jsonb not null,
        secrets_sealed text not null,
        configured_by text not null,
        configured_at timestamptz not null,
        updated_at timestamptz not null,
        primary key (shop_id, wallet)
      );
    `);
  }
}
