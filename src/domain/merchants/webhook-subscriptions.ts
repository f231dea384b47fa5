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
export async function requireWebhook(em: EntityManager, principal: Principal, id: string, anyKind = false): Promise<WebhookSubscriptionRow> {
  const webhook = await em.findOne(WebhookSubscription, { id, deletedAt: null, ...(anyKind ? {} : { kind: 'merchant' as const }) });
  const shop = webhook ? await em.findOne(Shop, { id: webhook.shopId, deletedAt: null }) : null;
  if (!webhook || !shop || !mayAccessShop(principal, shop)) throw new ToolError('not_found', `No webhook ${id}.`, { id });
  return webhook;
}

/** Subscribes a URL to a shop's events; the plaintext signing secret is returned here and only here. */
export async function createWebhookSubscription(
  { em, principal, clock, services }: Pick<ToolContext, 'em' | 'principal' | 'clock' | 'services'>,
  input: { merchantId: string; url: string; events: WebhookEventType[] },
): Promise<WebhookView & { secret: string }> {
  const shop = await requireShop(em, principal, input.merchantId);
  const refusal = refuseWebhookUrl(input.url, services.webhooks.addressPolicy);
  if (refusal) throw new ToolError('invalid_webhook_url', URL_REFUSAL_MESSAGES[refusal], { field: 'url', reason: refusal });
  const live = await em.count(WebhookSubscription, { shopId: shop.id, deletedAt: null, kind: 'merchant' });
  if (live >= MAX_WEBHOOKS_PER_SHOP) throw new ToolError('webhook_limit_reached', undefined, { limit: MAX_WEBHOOKS_PER_SHOP });
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
export async function listWebhookSubscriptions({ em, principal }: Pick<ToolContext, 'em' | 'principal'>, shopId: string): Promise<WebhookView[]> {
  await requireShop(em, principal, shopId);
  const rows = await em.find(WebhookSubscription, { shopId, deletedAt: null, kind: 'merchant' }, { orderBy: { id: 'asc' } });
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

interface DeliveryRow {
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
  return rows.length > input.limit ? { deliveries, nextCursor: page[page.length - 1]!.id } : { deliveries };
}
