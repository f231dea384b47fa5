/**
 * One code for a whole agent authorization: the `authorize_agent` purpose, and the digest of the details a code was
 * e-mailed for.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0017AgentAuthorizations extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table verification_challenges drop constraint verification_challenges_purpose_check;
      alter table verification_challenges add constraint verification_challenges_purpose_check
        check (purpose in ('save_card', 'create_agent', 'grant_permission', 'change_agent_card', 'raise_card_cap', 'verify_session', 'authorize_agent'));
      -- SHA-256 of what the e-mail said the code authorizes (agent, shop, card, limits); null for the other purposes.
      alter table verification_challenges add column subject_digest text null;
    `);
  }
}
