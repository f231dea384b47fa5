/**
 * The JSON body a webhook delivery POSTs, built from the event as recorded: the same on every attempt, so the console
 * can show it as the delivery's request.
 */

/** An event as recorded (`webhook_events`) and the kind of subscription it goes to. */
export interface RecordedEvent {
  kind: 'merchant' | 'acp' | 'ucp';
  type: string;
  data: unknown;
  created_at: Date | string;
}

/**
 * The JSON body POSTed for an event: the same on every attempt (the console shows it as the delivery's request). A
 * merchant event is `{ type, timestamp, data }`; an ACP event is sent as recorded, its permalink made absolute.
 */
export function deliveryBody(event: RecordedEvent, publicUrl: string): string {
  const data = typeof event.data === 'string' ? (JSON.parse(event.data) as unknown) : event.data;
  if (event.kind === 'ucp') return JSON.stringify(withAbsolutePermalink(data as Record<string, unknown>, publicUrl));
  return event.kind === 'acp'
    ? JSON.stringify(acpBody(data, publicUrl))
    : JSON.stringify({ type: event.type, timestamp: new Date(event.created_at).toISOString(), data });
}

/**
 * An ACP event as recorded (ACP's `WebhookEvent`, `data.permalink_url` a path) → the body sent, the permalink absolute.
 */
function acpBody(recorded: unknown, publicUrl: string): unknown {
  const event = recorded as { type: string; data: Record<string, unknown> };
  return { ...event, data: withAbsolutePermalink(event.data, publicUrl) };
}

/** An order whose `permalink_url` was recorded as a path, with the server's base URL before it. */
function withAbsolutePermalink(order: Record<string, unknown>, publicUrl: string): Record<string, unknown> {
  const link = order['permalink_url'];
  if (typeof link !== 'string' || !link.startsWith('/')) return order;
  return { ...order, permalink_url: `${publicUrl.replace(/\/$/, '')}${link}` };
}
