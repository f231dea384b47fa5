/**
 * One webhook delivery with its request and response, for the console's delivery log: the request is rebuilt from
 * the recorded event (the body is the same on every attempt; the timestamp and signature headers change per attempt
 * and are not kept); the response is what the last attempt recorded (its HTTP status or why it failed; response
 * bodies are not stored).
 */
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { sql } from '../../storage/database.ts';
import { deliveryBody } from '../../webhooks/dispatcher.ts';
import { deliveryView, requireWebhook, type DeliveryRow, type DeliveryView } from './webhook-subscriptions.ts';

export interface DeliveryDetail {
  delivery: DeliveryView;
  request: { method: 'POST'; url: string; headers: Record<string, string>; body: string };
  response: { status: number | null; error: string | null; at: string | null };
}

/** A delivery of a webhook the principal may see (the shop's ACP endpoint too), or `not_found`. */
export async function deliveryDetail(
  { em, principal, services }: Pick<ToolContext, 'em' | 'principal' | 'services'>,
  input: { id: string; deliveryId: string },
): Promise<DeliveryDetail> {
  const webhook = await requireWebhook(em, principal, input.id, true);
  const [row] = await sql<DeliveryRow & { data: unknown; event_created_at: Date }>(
    em,
    `select d.*, e.type, e.data, e.created_at as event_created_at
       from webhook_deliveries d join webhook_events e on e.id = d.event_id
      where d.subscription_id = ? and d.id = ?`,
    [webhook.id, input.deliveryId],
  );
  if (!row)
    throw new ToolError('not_found', `No delivery ${input.deliveryId} of webhook ${webhook.id}.`, {
      deliveryId: input.deliveryId,
    });
  const delivery = deliveryView(row);
  const body = deliveryBody(
    { kind: webhook.kind, type: row.type, data: row.data, created_at: row.event_created_at },
    services.publicUrl(),
  );
  return {
    delivery,
    request: {
      method: 'POST',
      url: webhook.url,
      headers: {
        'content-type': 'application/json',
        [webhook.kind === 'acp' ? 'request-id' : 'webhook-id']: row.event_id,
      },
      body,
    },
    response: { status: delivery.lastHttpStatus, error: delivery.lastError, at: delivery.lastAttemptAt },
  };
}
