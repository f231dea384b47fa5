/** The language a merchant minted the paying buyer session with, kept with the payment for the order e-mails. */
import { Migration } from '@mikro-orm/migrations';

export class Migration0021PaymentMailLang extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table payments add column if not exists mail_lang text');
  }
}
