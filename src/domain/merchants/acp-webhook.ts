/**
 * A shop's ACP order-webhook endpoint: where the agent platform (the ACP client) receives `order_create` and
 * `order_update` events for the shop's ACP checkout sessions. ACP leaves the receiver URL and the HMAC secret to be
 * agreed out of band between seller and platform, so the merchant sets both here; the endpoint is a webhook
 * subscription of kind `acp` (one live per shop), delivered by the same outbox and dispatcher as merchant webhooks.
 */
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { iso } from '../../kernel/wire.ts';
import { sql } from '../../storage/database.ts';
import { WebhookSubscription, type WebhookSubscriptionRow } from '../../storage/entities/webhook.ts';
import { newId } from '../../storage/ids.ts';
import { ACP_ORDER_EVENT_TYPES } from '../../webhooks/outbox.ts';
import { refuseWebhookUrl, URL_REFUSAL_MESSAGES } from '../../webhooks/url-policy.ts';
import { requireShop } from '../catalog/access.ts';
import { endSubscription } from './webhook-subscriptions.ts';

export interface AcpWebhookView {
  /** The subscription id: its delivery log is `list_webhook_deliveries` with this id. */
  id: string;
  url: string;
  events: string[];
  createdAt: string;
}

type Ctx = Pick<ToolContext, 'em' | 'principal' | 'clock' | 'services'>;

const view = (w: WebhookSubscriptionRow): AcpWebhookView => ({
  id: w.id,
  url: w.url,
  events: [...w.events],
  createdAt: iso(w.createdAt),
});

async function liveEndpoint(ctx: Pick<Ctx, 'em'>, shopId: string): Promise<WebhookSubscriptionRow | null> {
  return ctx.em.findOne(WebhookSubscription, { shopId, kind: 'acp', deletedAt: null });
}

/**
 * Sets (or replaces) the shop's ACP endpoint. The URL passes the same address checks as merchant webhooks; the
 * shared secret is sealed at rest and never returned. Deliveries still waiting for a retry go to the new URL,
 * signed with the new secret.
 */
export async function setAcpWebhook(
  ctx: Ctx,
  input: { merchantId: string; url: string; secret: string },
): Promise<AcpWebhookView> {
  const { em, clock, services } = ctx;
  const shop = await requireShop(em, ctx.principal, input.merchantId);
  const refusal = refuseWebhookUrl(input.url, services.webhooks.addressPolicy);
  if (refusal)
    throw new ToolError('invalid_webhook_url', URL_REFUSAL_MESSAGES[refusal], { field: 'url', reason: refusal });
  await sql(em, 'select id from shops where id = ? for update', [shop.id]); // one live endpoint per shop, even under races
  const url = new URL(input.url).toString();
  const existing = await liveEndpoint(ctx, shop.id);
  if (existing) {
    existing.url = url;
    existing.secretSealed = services.webhooks.secrets.seal(input.secret, existing.id);
    await em.flush();
    return view(existing);
  }
  const now = clock.now();
  const id = newId('webhook', now);
  const row = em.create(WebhookSubscription, {
    id,
    shopId: shop.id,
    url,
    events: [...ACP_ORDER_EVENT_TYPES],
    secretSealed: services.webhooks.secrets.seal(input.secret, id),
    kind: 'acp',
    createdAt: now,
    deletedAt: null,
  });
  await em.flush();
  return view(row);
}

/** The shop's ACP endpoint, or null when none is set. */
export async function getAcpWebhook(
  ctx: Ctx,
  merchantId: string,
): Promise<{ merchantId: string; webhook: AcpWebhookView | null }> {
  const shop = await requireShop(ctx.em, ctx.principal, merchantId);
  const row = await liveEndpoint(ctx, shop.id);
  return { merchantId: shop.id, webhook: row ? view(row) : null };
}

/** Removes the shop's ACP endpoint (no further order events are sent; pending deliveries are cancelled). */
export async function deleteAcpWebhook(
  ctx: Ctx,
  merchantId: string,
): Promise<{ merchantId: string; deleted: boolean; cancelledDeliveries: number }> {
  const shop = await requireShop(ctx.em, ctx.principal, merchantId);
  const row = await liveEndpoint(ctx, shop.id);
  if (!row) return { merchantId: shop.id, deleted: false, cancelledDeliveries: 0 };
  const ended = await endSubscription(ctx.em, row, ctx.clock.now());
  return { merchantId: shop.id, deleted: true, cancelledDeliveries: ended.cancelledDeliveries };
}
