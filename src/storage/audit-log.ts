/**
 * The audit log's table (migration 0023): one row per recorded write, written in the write's own transaction when it
 * has one, and read newest first, by organization, with filters and a cursor.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Database } from './database.ts';
import { newId } from './ids.ts';

/** Where a recorded call came in (the surfaces of `RequestInfo`). */
export type AuditSurface = 'rest' | 'mcp' | 'a2a' | 'internal';

/** What a row records (the actor's e-mail and key name are read from their rows as it is written). */
export interface AuditRecord {
  organizationId: string;
  at: Date;
  actorKind: 'console_user' | 'api_key';
  /** The console user, for a console session. */
  userId: string | null;
  /** The API key, for a key. */
  keyId: string | null;
  tool: string;
  targetIds: readonly string[];
  surface: AuditSurface;
  requestId: string | null;
}

export interface AuditFilter {
  organizationId: string;
  /** A user id or key id. */
  actor?: string | undefined;
  tool?: string | undefined;
  targetId?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  cursor?: string | undefined;
  limit: number;
}

export interface AuditRow {
  id: string;
  at: Date | string;
  actor_kind: 'console_user' | 'api_key';
  user_id: string | null;
  email: string | null;
  key_id: string | null;
  key_name: string | null;
  tool: string;
  target_ids: string[];
  surface: AuditSurface;
  request_id: string | null;
}

/**
 * Writes one row through `em`: inside its transaction when it has one (the write's own), else on its own. A key's
 * row names the key and the person who made it; a console user's, the user.
 */
export async function recordAudit(em: EntityManager, r: AuditRecord): Promise<void> {
  const text = `insert into audit_log
      (id, organization_id, at, actor_kind, user_id, email, key_id, key_name, tool, target_ids, surface, request_id)
    select ?, ?, ?, ?, coalesce(?, k.created_by_user_id), u.email, k.id, k.name, ?,
           array(select jsonb_array_elements_text(?::jsonb)), ?, ?
      from (select 1) one
      left join api_keys k on k.id = ?
      left join users u on u.id = coalesce(?, k.created_by_user_id)`;
  const params = [
    newId('auditEntry', r.at),
    r.organizationId,
    r.at,
    r.actorKind,
    r.userId,
    r.tool,
    JSON.stringify(r.targetIds),
    r.surface,
    r.requestId,
    r.keyId,
    r.userId,
  ];
  await sql(em, text, params);
}

/** A page of an organization's rows, newest first (as written), after the row `cursor` names when given. */
export async function listAudit(db: Database, f: AuditFilter): Promise<AuditRow[]> {
  const where = ['organization_id = ?'];
  const params: unknown[] = [f.organizationId];
  const add = (clause: string, ...values: unknown[]) => {
    where.push(clause);
    params.push(...values);
  };
  if (f.actor) add('(user_id = ? or key_id = ?)', f.actor, f.actor);
  if (f.tool) add('tool = ?', f.tool);
  if (f.targetId) add('target_ids @> array[?]::text[]', f.targetId);
  if (f.from) add('at >= ?', f.from);
  if (f.to) add('at < ?', f.to);
  if (f.cursor) add('seq < (select c.seq from audit_log c where c.id = ?)', f.cursor);
  params.push(f.limit);
  return db.execute<AuditRow>(
    `select id, at, actor_kind, user_id, email, key_id, key_name, tool, target_ids, surface, request_id
       from audit_log where ${where.join(' and ')} order by seq desc limit ?`,
    params,
  );
}
