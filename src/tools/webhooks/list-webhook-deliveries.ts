/** list_webhook_deliveries: the delivery log of one webhook, newest first: attempts, outcome and the next retry. */
import { z } from 'zod';
import { defineTool } from '../../orchestrator/tool.ts';
import { sql } from '../../storage/database.ts';
import { iso, isoOrNull } from '../serialize.ts';
import { requireWebhook, webhookAuth } from './shared.ts';

const DeliveryStatus = z.enum(['pending', 'delivered', 'failed', 'cancelled']);

const DeliveryOut = z.object({
  id: z.string(),
  webhookId: z.string(),
  eventId: z.string().describe('Sent as the webhook-id header; the same on every attempt.'),
  type: z.string(),
  status: DeliveryStatus.describe('pending (an attempt is due at nextAttemptAt), delivered, failed (gave up) or cancelled.'),
  attempts: z.number().int(),
  lastHttpStatus: z.number().int().nullable().describe('The HTTP status of the last attempt, null when none answered.'),
  lastError: z.string().nullable().describe('Why the last attempt failed, in short.'),
  lastAttemptAt: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  createdAt: z.string(),
});

interface DeliveryRow {
  id: string;
  subscription_id: string;
  event_id: string;
  type: string;
  status: z.infer<typeof DeliveryStatus>;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  created_at: Date;
}

export const listWebhookDeliveries = defineTool({
  name: 'list_webhook_deliveries',
  title: 'List webhook deliveries',
  area: 'integration',
  description:
    'The delivery log of a webhook, newest first: for each event, its type, the number of attempts, the status, ' +
    'the last HTTP status and error, when the next retry is due and when it was delivered. Pages with `limit` ' +
    '(default 50) and `cursor` (the previous page’s nextCursor). Requires merchant:read.',
  input: z.strictObject({
    id: z.string().min(1).describe('The webhook id, e.g. whk_…'),
    status: DeliveryStatus.optional().describe('Only deliveries in this status.'),
    limit: z.coerce.number().int().min(1).max(100).optional(),
    cursor: z.string().min(1).max(100).optional(),
  }),
  output: z.object({ deliveries: z.array(DeliveryOut), nextCursor: z.string().optional() }),
  errors: ['not_found', 'insufficient_scope'],
  auth: webhookAuth('merchant:read'),
  http: { method: 'GET', path: '/v1/integration/webhooks/{id}/deliveries' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler(input, { em, principal }) {
    const webhook = await requireWebhook(em, principal, input.id);
    const limit = input.limit ?? 50;
    const where = ['d.subscription_id = ?'];
    const params: unknown[] = [webhook.id];
    if (input.status) {
      where.push('d.status = ?');
      params.push(input.status);
    }
    if (input.cursor) {
      where.push('d.id < ?');
      params.push(input.cursor);
    }
    const rows = await sql<DeliveryRow>(
      em,
      `select d.*, e.type from webhook_deliveries d join webhook_events e on e.id = d.event_id
        where ${where.join(' and ')} order by d.id desc limit ?`,
      [...params, limit + 1],
    );
    const page = rows.slice(0, limit);
    const deliveries = page.map((d) => ({
      id: d.id,
      webhookId: d.subscription_id,
      eventId: d.event_id,
      type: d.type,
      status: d.status,
      attempts: d.attempts,
      lastHttpStatus: d.last_status,
      lastError: d.last_error,
      lastAttemptAt: isoOrNull(d.last_attempt_at),
      nextAttemptAt: isoOrNull(d.next_attempt_at),
      deliveredAt: isoOrNull(d.delivered_at),
      createdAt: iso(d.created_at),
    }));
    return rows.length > limit ? { deliveries, nextCursor: page[page.length - 1]!.id } : { deliveries };
  },
});
