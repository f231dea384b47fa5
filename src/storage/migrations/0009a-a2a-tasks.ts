/**
 * A2A tasks in PostgreSQL, so every server process reads them: owned by a principal, expired by the retention pass.
 * The task is JSON kept as text: jsonb refuses the `\u0000` and lone-surrogate escapes a caller's message may carry.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0009aA2aTasks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table a2a_tasks (
      owner text not null,
      id text not null,
      context_id text not null,
      state text not null,
      status_at timestamptz not null,
      task text not null,
      updated_at timestamptz not null,
      primary key (owner, id)
    );`);
    this.addSql('create index a2a_tasks_owner_status on a2a_tasks (owner, status_at desc, id desc);');
    this.addSql('create index a2a_tasks_updated on a2a_tasks (updated_at);');
  }
}
