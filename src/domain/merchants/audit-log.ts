/**
 * The audit log's rules (docs/console.md, "Audit log"): which calls are recorded (every successful write, by a
 * console user or an API key), which ids a record names (every id of a merchant-side object in the call's input and
 * output, found in one generic walk: never a token, a secret or a personal field), and how an organization reads its
 * own log, newest first.
 */
import type { Principal } from '../../kernel/principal.ts';
import { ID_PREFIXES } from '../../storage/ids.ts';
import { listAudit, type AuditRecord, type AuditRow, type AuditSurface } from '../../storage/audit-log.ts';
import type { Database } from '../../storage/database.ts';
import { ToolError } from '../../kernel/errors.ts';

/** The kinds of object a record may name: merchant-side things, never a token or a payment secret. */
const TARGET_PREFIXES = new Set<string>(
  (
    [
      'organization',
      'user',
      'apiKey',
      'shop',
      'event',
      'pool',
      'tier',
      'reservation',
      'order',
      'ticket',
      'payment',
      'refund',
      'webhook',
      'delivery',
      'invitation',
      'ticketKey',
      'checkout',
      'permission',
      'agent',
    ] as const
  ).map((kind) => ID_PREFIXES[kind]),
);
/** An identifier as `newId` makes them: a known prefix and 26 base32 characters. */
const ID_SHAPE = /^([a-z]+)_[0-9a-hjkmnp-tv-z]{26}$/;
/** At most this many ids per record (a batch call names its first ones). */
export const MAX_TARGETS = 50;
/** How deep the walk goes into an input or output. */
const MAX_DEPTH = 6;

/** What the orchestrator knows of a successful call. */
export interface AuditedCall {
  tool: string;
  readOnly: boolean;
  /** The tool declares it is not recorded (`audited: false`: the purchase spine). */
  unaudited: boolean;
  principal: Principal;
  input: unknown;
  output: unknown;
  surface: AuditSurface;
  requestId: string | null;
  at: Date;
}

/**
 * The record of a successful call, or null when it is not recorded: a read (the tool's `readOnlyHint`), a purchase
 * step (`audited: false`: quote, reserve, confirm, release are recorded as the quote, reservation and order
 * themselves), or a caller that is neither a console user nor an API key (buyers, agents, staff and anonymous callers
 * are not merchant actors).
 */
export function auditRecordFor(call: AuditedCall): AuditRecord | null {
  const p = call.principal;
  if (call.readOnly || call.unaudited || (p.kind !== 'console_user' && p.kind !== 'api_key')) return null;
  const ids = new Set<string>();
  collectIds(call.input, ids, 0);
  collectIds(call.output, ids, 0);
  return {
    organizationId: p.organizationId,
    at: call.at,
    actorKind: p.kind,
    userId: p.kind === 'console_user' ? p.userId : null,
    keyId: p.kind === 'api_key' ? p.keyId : null,
    tool: call.tool,
    targetIds: [...ids].slice(0, MAX_TARGETS),
    surface: call.surface,
    requestId: call.requestId,
  };
}

function collectIds(value: unknown, ids: Set<string>, depth: number): void {
  if (ids.size >= MAX_TARGETS || depth > MAX_DEPTH) return;
  if (typeof value === 'string') {
    const m = ID_SHAPE.exec(value);
    if (m && TARGET_PREFIXES.has(m[1]!)) ids.add(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collectIds(item, ids, depth + 1);
  } else if (value && typeof value === 'object') {
    for (const item of Object.values(value)) collectIds(item, ids, depth + 1);
  }
}

export interface AuditQuery {
  actor?: string | undefined;
  tool?: string | undefined;
  targetId?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  cursor?: string | undefined;
  limit: number;
}

/** The caller's own organization's log, newest first; other organizations' records never show. */
export async function listAuditLog(db: Database, principal: Principal, q: AuditQuery) {
  if (principal.kind !== 'console_user' && principal.kind !== 'api_key') throw new ToolError('forbidden');
  const rows = await listAudit(db, {
    organizationId: principal.organizationId,
    actor: q.actor,
    tool: q.tool,
    targetId: q.targetId,
    from: q.from ? new Date(q.from) : undefined,
    to: q.to ? new Date(q.to) : undefined,
    cursor: q.cursor,
    limit: q.limit + 1,
  });
  const page = rows.slice(0, q.limit);
  const entries = page.map(toEntry);
  return rows.length > q.limit ? { entries, nextCursor: page[page.length - 1]!.id } : { entries };
}

function toEntry(r: AuditRow) {
  return {
    id: r.id,
    at: new Date(r.at).toISOString(),
    actorKind: r.actor_kind,
    userId: r.user_id,
    email: r.email,
    keyId: r.key_id,
    keyName: r.key_name,
    tool: r.tool,
    targetIds: r.target_ids,
    surface: r.surface,
    requestId: r.request_id,
  };
}
