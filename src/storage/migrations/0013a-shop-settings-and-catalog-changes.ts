/**
 * Shop settings (a public description), cancelled events and retired tiers: columns the discovery area and catalog
 * changes read.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0013aShopSettingsAndCatalogChanges extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table shops add column description text;
      alter table events add column cancelled_at timestamptz;
      alter table events add column updated_at timestamptz;
      alter table tiers add column retired_at timestamptz;
      alter table tiers add column updated_at timestamptz;
      alter table shops add column updated_at timestamptz;
      create index shops_discoverable on shops (id) where discoverable and deleted_at is null;
    `);
  }
}
