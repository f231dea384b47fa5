/** create_export: a single-use, short-lived link to a shop's orders or tickets as CSV. */
import { z } from 'zod';
import { createExport as create, EXPORT_KINDS, EXPORT_TTL_MS } from '../../domain/purchase/exports.ts';
import { defineTool } from '../../orchestrator/tool.ts';

const Instant = z.iso.datetime({ offset: true }).max(40);

export const createExport = defineTool({
  name: 'create_export',
  title: 'Export orders or tickets as CSV',
  area: 'ticketing',
  description:
    'Creates a download of shop `merchantId`’s orders or tickets (optionally one event, a creation range) as CSV: ' +
    `GET \`downloadUrl\` once within ${EXPORT_TTL_MS / 60_000} minutes, no credential (a browser link). The ` +
    'file is UTF-8 with a BOM, RFC 4180, every row streamed; cells starting with = + - @ tab or CR are prefixed with ' +
    "' so spreadsheets do not run them. Columns: docs/console.md. No ticket codes. Needs merchant:read.",
  input: z.strictObject({
    merchantId: z.string().min(1).max(100).describe('The shop (shop_…).'),
    kind: z.enum(EXPORT_KINDS).describe('orders: one row per order; tickets: one row per ticket.'),
    eventId: z.string().min(1).max(100).optional().describe('Only this event (evt_…).'),
    createdFrom: Instant.optional().describe('RFC 3339; orders created at or after this instant.'),
    createdBefore: Instant.optional().describe('RFC 3339; orders created before this instant.'),
  }),
  output: z.object({
    exportId: z.string(),
    downloadUrl: z.string().describe('GET it once, before `expiresAt`: the CSV file (an attachment).'),
    expiresAt: z.string().describe('RFC 3339 date-time.'),
    filename: z.string(),
  }),
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:read'] },
  http: { method: 'POST', path: '/v1/ticketing/exports', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler(input, { em, principal, clock, services }) {
    return create(em, principal, input, clock.now(), services.publicUrl());
  },
});
