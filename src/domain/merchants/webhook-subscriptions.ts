/**
 * Merchant webhook subscriptions: who may subscribe a shop, how many live subscriptions a shop may have, which
 * URLs are refused, and the delivery log. Signing secrets are sealed at rest and returned once, at creation.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import type { Principal } from '../../kernel/principal.ts';
import { iso, isoOrNull } from '../../kernel/wire.ts';
import { sql } from '../../storage/database.ts';
import { Shop } from '../../storage/entities/catalog.ts';
import { WebhookSubscription, type WebhookSubscriptionRow } from '../../storage/entities/webhook.ts';
import { newId } from '../../storage/ids.ts';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../webhooks/outbox.ts';
import { generateSigningSecret } from '../../webhooks/signature.ts';
import { refuseWebhookUrl, URL_REFUSAL_MESSAGES } from '../../webhooks/url-policy.ts';
import { mayAccessShop, requireShop } from '../catalog/access.ts';

/** Live subscriptions one shop may have. */
export const MAX_WEBHOOKS_PER_SHOP = 16;

export interface WebhookView {
  id: string;
  merchantId: string;
  url: string;
  events: WebhookEventType[];
  status: 'active';
  createdAt: string;
}

export function webhookView(w: WebhookSubscriptionRow): WebhookView {
  return {
    id: w.id,
    merchantId: w.shopId,
    url: w.url,
    events: w.events.filter((e): e is WebhookEventType => (WEBHOOK_EVENT_TYPES as readonly string[]).includes(e)),
    status: 'active',
    createdAt: iso(w.createdAt),
  };
}

/**
 * Loads a live subscription whose shop the principal may act on, or throws `not_found`. Only the merchant's own
 * subscriptions unless `anyKind` (the delivery log also shows the shop's ACP endpoint, `acp-webhook.ts`).
 */
export async function requireWebhook(
  em: EntityManager,
  principal: Principal,
  id: string,
  anyKind = false,
): Promise<WebhookSubscriptionRow> {
  const webhook = await em.findOne(WebhookSubscription, {
    id,
    deletedAt: null,
    ...(anyKind ? {} : { kind: 'merchant' as const }),
  });
  const shop = webhook ? await em.findOne(Shop, { id: webhook.shopId, deletedAt: null }) : null;
  if (!webhook || !shop || !mayAccessShop(principal, shop))
    throw new ToolError('not_found', `No webhook ${id}.`, { id });
  return webhook;
}

/** Subscribes a URL to a shop's events; the plaintext signing secret is returned here and only here. */
export async function createWebhookSubscription(
  { em, principal, clock, services }: Pick<ToolContext, 'em' | 'principal' | 'clock' | 'services'>,
  input: { merchantId: string; url: string; events: WebhookEventType[] },
): Promise<WebhookView & { secret: string }> {
  const shop = await requireShop(em, principal, input.merchantId);
  const refusal = refuseWebhookUrl(input.url, services.webhooks.addressPolicy);
  if (refusal)
    throw new ToolError('invalid_webhook_url', URL_REFUSAL_MESSAGES[refusal], { field: 'url', reason: refusal });
  const live = await em.count(WebhookSubscription, { shopId: shop.id, deletedAt: null, kind: 'merchant' });
  if (live >= MAX_WEBHOOKS_PER_SHOP)
    throw new ToolError('webhook_limit_reached', undefined, { limit: MAX_WEBHOOKS_PER_SHOP });
  const now = clock.now();
  const id = newId('webhook', now);
  const secret = generateSigningSecret();
  const webhook = em.create(WebhookSubscription, {
    id,
    shopId: shop.id,
    url: new URL(input.url).toString(),
    events: [...new Set(input.events)],
    secretSealed: services.webhooks.secrets.seal(secret, id),
    kind: 'merchant',
    createdAt: now,
    deletedAt: null,
  });
  await em.flush();
  return { ...webhookView(webhook), secret };
}

/** A shop's live subscriptions in id order. */
export async function listWebhookSubscriptions(
  { em, principal }: Pick<ToolContext, 'em' | 'principal'>,
  shopId: string,
): Promise<WebhookView[]> {
  await requireShop(em, principal, shopId);
  const rows = await em.find(
    WebhookSubscription,
    { shopId, deletedAt: null, kind: 'merchant' },
    { orderBy: { id: 'asc' } },
  );
  return rows.map(webhookView);
}

/** Ends a subscription and cancels its deliveries still waiting for an attempt. */
export async function deleteWebhookSubscription(
  { em, principal, clock }: Pick<ToolContext, 'em' | 'principal' | 'clock'>,
  id: string,
): Promise<{ id: string; deleted: true; cancelledDeliveries: number }> {
  return endSubscription(em, await requireWebhook(em, principal, id), clock.now());
}

/** Marks a subscription deleted and cancels its pending deliveries. */
export async function endSubscription(
  em: EntityManager,
  webhook: WebhookSubscriptionRow,
  now: Date,
): Promise<{ id: string; deleted: true; cancelledDeliveries: number }> {
  webhook.deletedAt = now;
  await em.flush();
  const cancelled = await sql(
    em,
    `update webhook_deliveries set status = 'cancelled', next_attempt_at = null
      where subscription_id = ? and status = 'pending' returning id`,
    [webhook.id],
  );
  return { id: webhook.id, deleted: true, cancelledDeliveries: cancelled.length };
}

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface DeliveryView {
  id: string;
  webhookId: string;
  eventId: string;
  type: string;
  status: DeliveryStatus;
  attempts: number;
  lastHttpStatus: number | null;
  lastError: string | null;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  createdAt: string;
}

/** A delivery row joined with its event's type (what `deliveryView` reads). */
export interface DeliveryRow {
  id: string;
  subscription_id: string;
  event_id: string;
  type: string;
  status: DeliveryStatus;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  created_at: Date;
}

/** A delivery as the tools show it. */
export function deliveryView(d: DeliveryRow): DeliveryView {
  return {
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
  };
}

/** A page of one subscription's delivery log, newest first, optionally only one status. */
export async function listDeliveries(
  { em, principal }: Pick<ToolContext, 'em' | 'principal'>,
  input: { id: string; status?: DeliveryStatus | undefined; limit: number; cursor?: string | undefined },
): Promise<{ deliveries: DeliveryView[]; nextCursor?: string }> {
  const webhook = await requireWebhook(em, principal, input.id, true);
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
    [...params, input.limit + 1],
  );
  const page = rows.slice(0, input.limit);
  const deliveries = page.map(deliveryView);
  return rows.length > input.limit ? { deliveries, nextCursor: page[page.length - 1]!.id } : { deliveries };
}

/** The type of the event `sendTestEvent` sends; it is not one subscriptions choose, it goes to one subscription. */
export const TEST_EVENT_TYPE = 'webhook.test';

/**
 * Sends a `webhook.test` event to one subscription: the event and its delivery are written together, the event
 * marked as already fanned out so it reaches this subscription only, and the delivery due at once. The dispatcher
 * sends it like any other (signed, retried), and it shows in the delivery log.
 */
export async function sendTestEvent(
  { em, principal, clock }: Pick<ToolContext, 'em' | 'principal' | 'clock'>,
  id: string,
): Promise<DeliveryView> {
  const webhook = await requireWebhook(em, principal, id);
  const now = clock.now();
  const eventId = newId('webhookEvent', now);
  await sql(
    em,
    'insert into webhook_events (id, shop_id, type, data, created_at, dispatched_at) values (?, ?, ?, ?::jsonb, ?, ?)',
    [
      eventId,
      webhook.shopId,
      TEST_EVENT_TYPE,
      JSON.stringify({ webhookId: webhook.id, merchantId: webhook.shopId, test: true }),
      now,
      now,
    ],
  );
  const deliveryId = newId('delivery', now);
  await sql(
    em,
    `insert into webhook_deliveries (id, event_id, subscription_id, status, attempts, next_attempt_at, created_at)
     values (?, ?, ?, 'pending', 0, ?, ?)`,
    [deliveryId, eventId, webhook.id, now, now],
  );
  return (await deliveryById(em, webhook.id, deliveryId))!;
}

/**
 * Sends one delivery again: a delivered, failed or cancelled delivery becomes pending with a fresh retry schedule
 * (its attempts count from 0), due at once, with the same event id (the webhook-id header), so a receiver that
 * already has it can tell. A delivery still pending is already queued: `delivery_pending`.
 */
export async function redeliver(
  { em, principal, clock }: Pick<ToolContext, 'em' | 'principal' | 'clock'>,
  input: { id: string; deliveryId: string },
): Promise<DeliveryView> {
  const webhook = await requireWebhook(em, principal, input.id);
  const now = clock.now();
  const updated = await sql<{ id: string }>(
    em,
    `update webhook_deliveries set status = 'pending', attempts = 0, next_attempt_at = ?, delivered_at = null
      where id = ? and subscription_id = ? and status <> 'pending' returning id`,
    [now, input.deliveryId, webhook.id],
  );
  const delivery = await deliveryById(em, webhook.id, input.deliveryId);
  if (!delivery)
    throw new ToolError('not_found', `No delivery ${input.deliveryId} of webhook ${webhook.id}.`, {
      deliveryId: input.deliveryId,
    });
  if (!updated.length)
    throw new ToolError('delivery_pending', undefined, {
      deliveryId: delivery.id,
      nextAttemptAt: delivery.nextAttemptAt,
    });
  return delivery;
}

async function deliveryById(
  em: EntityManager,
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryView | undefined> {
  const [row] = await sql<DeliveryRow>(
    em,
    `select d.*, e.type from webhook_deliveries d join webhook_events e on e.id = d.event_id
      where d.subscription_id = ? and d.id = ?`,
    [webhookId, deliveryId],
  );
  return row ? deliveryView(row) : undefined;
}
