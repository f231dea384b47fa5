/**
 * UCP order webhooks (order.md, "Events"): a platform that declares the order capability names its `webhook_url` in
 * its profile. When it completes a checkout, that URL (checked by the webhooks' address policy) becomes a webhook
 * subscription of kind `ucp` (one live per shop and URL) and the session remembers it; the order's events
 * (`ucp.order_create` when placed, `ucp.order_update` on a refund or cancel) are recorded in the outbox, addressed to
 * that subscription, in the transaction of the change (src/domain/purchase/ucp-order-events.ts). The dispatcher signs
 * them (RFC 9421) and delivers them with retries.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ToolError } from '../../kernel/errors.ts';
import { sql } from '../../storage/database.ts';
import { newId } from '../../storage/ids.ts';
import { UCP_ORDER_EVENT_TYPES } from '../../webhooks/outbox.ts';
import { refuseWebhookUrl, URL_REFUSAL_MESSAGES, type AddressPolicy } from '../../webhooks/url-policy.ts';

/** Refuses a platform's webhook URL the address policy does not allow (before anything is charged). */
export function checkOrderWebhookUrl(url: string, policy: AddressPolicy): void {
  const refusal = refuseWebhookUrl(url, policy);
  if (refusal) {
    throw new ToolError(
      'invalid_webhook_url',
      `The platform profile's order webhook_url: ${URL_REFUSAL_MESSAGES[refusal]}`,
      {
        field: 'dev.ucp.shopping.order.config.webhook_url',
        reason: refusal,
      },
    );
  }
}

/** Sends the session's order events to `url` from now on (inside the caller's transaction). */
export async function linkOrderWebhook(
  em: EntityManager,
  link: { sessionId: string; shopId: string; url: string; now: Date },
): Promise<void> {
  const url = new URL(link.url).toString();
  const inserted = await sql<{ id: string }>(
    em,
    `insert into webhook_subscriptions (id, shop_id, url, events, secret_sealed, kind, created_at)
     values (?, ?, ?, ?::text[], '', 'ucp', ?)
     on conflict (shop_id, url) where kind = 'ucp' and deleted_at is null do nothing returning id`,
    [newId('webhook', link.now), link.shopId, url, `{${UCP_ORDER_EVENT_TYPES.join(',')}}`, link.now],
  );
  const [subscription] = inserted.length
    ? inserted
    : await sql<{ id: string }>(
        em,
        `select id from webhook_subscriptions where shop_id = ? and url = ? and kind = 'ucp' and deleted_at is null`,
        [link.shopId, url],
      );
  await sql(
    em,
    `insert into ucp_order_webhooks (session_id, subscription_id, created_at) values (?, ?, ?)
     on conflict (session_id) do update set subscription_id = excluded.subscription_id`,
    [link.sessionId, subscription!.id, link.now],
  );
}
