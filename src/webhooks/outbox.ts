/**
 * The transactional outbox: a domain event is written in the same transaction as the state change
 * it describes, so no committed change is ever without its event (and no event without its change).
 * Delivery to subscribers happens afterwards (see the webhook dispatcher).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../storage/database.ts';
import { newId } from '../storage/ids.ts';
import { recordedData } from '../kernel/event-data.ts';

/** Event kinds merchants can subscribe to. */
export const WEBHOOK_EVENT_TYPES = [
  'order.completed',
  'order.pending',
  'order.refunded',
  'reservation.released',
  'reservation.expired',
  'payment.failed',
  'event.updated',
  'event.cancelled',
  'tier.updated',
  'tier.retired',
  'pool.updated',
  'ticket.voided',
  'refund.failed',
  'ticket.checked_in',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * Events for a shop's ACP agent-platform endpoint only (a subscription of kind `acp`; merchants cannot subscribe
 * to them): `data` is ACP's `WebhookEvent` body, sent as it is with ACP's `Merchant-Signature`.
 */
export const ACP_ORDER_EVENT_TYPES = ['acp.order_create', 'acp.order_update'] as const;
export type AcpOrderEventType = (typeof ACP_ORDER_EVENT_TYPES)[number];

/**
 * Events for one UCP platform's order webhook only (a subscription of kind `ucp`, addressed by `subscriptionId`):
 * `data` is UCP's order, sent signed with RFC 9421 HTTP Message Signatures (ucp-signature.ts).
 */
export const UCP_ORDER_EVENT_TYPES = ['ucp.order_create', 'ucp.order_update'] as const;
export type UcpOrderEventType = (typeof UCP_ORDER_EVENT_TYPES)[number];

export interface DomainEvent {
  shopId: string;
  type: WebhookEventType | AcpOrderEventType | UcpOrderEventType;
  data: Record<string, unknown>;
  now: Date;
  /** Delivered to this subscription only (a UCP platform's); absent: to every subscription of the type. */
  subscriptionId?: string;
}

/**
 * Records an event inside the caller's transaction; returns its id (`evt_…` ids are events of the catalog, so `whe_…`).
 */
export async function emitEvent(em: EntityManager, event: DomainEvent): Promise<string> {
  const id = newId('webhookEvent', event.now);
  if (event.subscriptionId) {
    await sql(
      em,
      `insert into webhook_events (id, shop_id, type, data, created_at, subscription_id)
       values (?, ?, ?, ?::jsonb, ?, ?)`,
      [id, event.shopId, event.type, recordedData(event.data), event.now, event.subscriptionId],
    );
    return id;
  }
  await sql(em, 'insert into webhook_events (id, shop_id, type, data, created_at) values (?, ?, ?, ?::jsonb, ?)', [
    id,
    event.shopId,
    event.type,
    recordedData(event.data),
    event.now,
  ]);
  return id;
}

/** emitEvent for many events of one transaction: one multi-row insert per 1,000 events; returns their ids in order. */
export async function emitEvents(em: EntityManager, events: readonly DomainEvent[]): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < events.length; start += 1000) {
    const chunk = events.slice(start, start + 1000);
    const params: unknown[] = [];
    for (const event of chunk) {
      const id = newId('webhookEvent', event.now);
      ids.push(id);
      params.push(id, event.shopId, event.type, recordedData(event.data), event.now);
    }
    await sql(
      em,
      `insert into webhook_events (id, shop_id, type, data, created_at) values ${chunk.map(() => '(?, ?, ?, ?::jsonb, ?)').join(', ')}`,
      params,
    );
  }
  return ids;
}
