/** list_audit_log: the organization's audit log (who wrote what, when, from which key), newest first. */
import { z } from 'zod';
import { listAuditLog as listOrganizationAuditLog } from '../../domain/merchants/audit-log.ts';
import { defineTool } from '../../orchestrator/tool.ts';

const Instant = z.iso.datetime({ offset: true }).max(40);
const Id = z.string().min(1).max(100);

const AuditEntryOut = z.object({
  id: z.string().describe('The record (aud_…).'),
  at: z.string().describe('When the write was made (RFC 3339).'),
  actorKind: z.enum(['console_user', 'api_key']),
  userId: z.string().nullable().describe('The console user, or the person who made the API key.'),
  email: z.string().nullable().describe('That person’s e-mail address.'),
  keyId: z.string().nullable().describe('The API key (key_…), for a key’s write.'),
  keyName: z.string().nullable().describe('The API key’s name, for a key’s write.'),
  tool: z.string().describe('The operation, e.g. create_event.'),
  targetIds: z.array(z.string()).describe('The ids the call named or returned (shop_…, evt_…, ord_…, key_…, …).'),
  surface: z.enum(['rest', 'mcp', 'a2a', 'internal']).describe('Where the call came in.'),
  requestId: z.string().nullable().describe('The HTTP request’s X-Request-Id, when it came over HTTP.'),
});

export const listAuditLog = defineTool({
  name: 'list_audit_log',
  title: 'Read the audit log',
  area: 'console',
  description:
    'Lists the caller’s organization’s audit log, newest first: every successful write made by a console user or ' +
    'an API key (who, which operation, which ids, when, from which surface and request). Read-only; failed calls ' +
    'and reads are not recorded, nor any secret. Filters narrow: `actor` (a usr_… or key_… id), `tool`, ' +
    '`targetId`, `from` inclusive, `to` exclusive. Continue with `cursor` = `nextCursor`.',
  input: z.strictObject({
    actor: Id.optional().describe('Only writes by this console user (usr_…) or API key (key_…).'),
    tool: z.string().min(1).max(100).optional().describe('Only calls of this operation, e.g. create_event.'),
    targetId: Id.optional().describe('Only writes that named this id (shop_…, evt_…, pool_…, ord_…, …).'),
    from: Instant.optional().describe('RFC 3339; records at or after this instant.'),
    to: Instant.optional().describe('RFC 3339; records before this instant.'),
    limit: z.coerce.number().int().min(1).max(100).optional().describe('Page size, 1 to 100 (default 50).'),
    cursor: Id.optional().describe('The previous page’s `nextCursor`.'),
  }),
  output: z.object({ entries: z.array(AuditEntryOut), nextCursor: z.string().optional() }),
  errors: ['insufficient_scope'],
  auth: { principals: ['console_user', 'api_key'], scopes: ['merchant:read'], roles: ['owner', 'integrator'] },
  http: { method: 'GET', path: '/v1/console/audit-log' },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  transactional: false,
  async handler({ limit = 50, ...query }, ctx) {
    return listOrganizationAuditLog(ctx.services.db, ctx.principal, { ...query, limit });
  },
});
