/** Cursor pages of a shop's pools (list_pools): the (shop_id, id) index serves each page in O(log n + page). */
import { Migration } from '@mikro-orm/migrations';

export class Migration0012PoolPages extends Migration {
  override async up(): Promise<void> {
    this.addSql('create index pools_shop_id_id on pools (shop_id, id);');
  }
}
