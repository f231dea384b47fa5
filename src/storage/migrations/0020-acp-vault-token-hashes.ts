/**
 * Delegated payment tokens (`vt_…`) are no longer stored in clear: new ones under an HMAC with the server secret's
 * sub-key (`h1:…`, written by the code, which holds the secret), and those already stored are converted here to
 * `s256:` and their SHA-256 (a migration has no secret), in the token table and on the sessions they paid.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0020AcpVaultTokenHashes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      update acp_vault_tokens set id = 's256:' || encode(sha256(convert_to(id, 'UTF8')), 'hex')
        where id like 'vt\\_%';
      update acp_checkout_sessions
        set payment_token_id = 's256:' || encode(sha256(convert_to(payment_token_id, 'UTF8')), 'hex')
        where payment_token_id like 'vt\\_%';
    `);
  }
}
