/** Mandate purchases: a spent jti is found by the payment it paid for (`reference`), to give it back on a decline. */
import { Migration } from '@mikro-orm/migrations';

export class Migration0007MandatePurchases extends Migration {
  override async up(): Promise<void> {
    this.addSql('create index mandate_jtis_reference on mandate_jtis (reference) where reference is not null;');
  }
}
