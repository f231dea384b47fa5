/**
 * The audit log: one row per successful write by a console user or an API key (who, which tool, which ids, from
 * which surface and request, when). Ids only: no inputs, outputs or secrets. `seq` orders records as they were
 * written (ids sort by time only to the millisecond).
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0023AuditLog extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table if not exists audit_log (
        id text primary key,
        seq bigserial not null,
        organization_id text not null,
        at timestamptz not null,
        actor_kind text not null check (actor_kind in ('console_user', 'api_key')),
        user_id text,
        email text,
        key_id text,
        key_name text,
        tool text not null,
        target_ids text[] not null default '{}',
        surface text not null,
        request_id text
      );
      create index if not exists audit_log_org_seq on audit_log (organization_id, seq desc);
      create index if not exists audit_log_targets on audit_log using gin (target_ids);
    `);
  }
}
