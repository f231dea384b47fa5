/** Merchant webhook subscriptions (signing secret stored sealed) and the per-subscription delivery log. */
import { defineEntity, p } from '@mikro-orm/core';

export const WebhookSubscription = defineEntity({
  name: 'WebhookSubscription',
  tableName: 'webhook_subscriptions',
  properties: {
    id: p.string().primary(),
    shopId: p.string(),
    url: p.string(),
    events: p.array(),
    /** The `whsec_…` signing secret, encrypted (see src/webhooks/secret-box.ts); never returned after creation. */
    secretSealed: p.string(),
    /**
     * `merchant` (the shop's own systems, Standard Webhooks) or `acp` (the agent platform's order-event receiver, ACP's
     * Merchant-Signature) or `ucp` (a UCP platform's order webhook, signed with RFC 9421; no shared secret).
     */
    kind: p.string().$type<'merchant' | 'acp' | 'ucp'>().default('merchant'),
    createdAt: p.datetime(),
    deletedAt: p.datetime().nullable(),
  },
});
export type WebhookSubscriptionRow = InstanceType<typeof WebhookSubscription.class>;

export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  properties: {
    id: p.string().primary(),
    eventId: p.string(),
    subscriptionId: p.string(),
    /** `pending` (first attempt or a retry is due at nextAttemptAt), `delivered`, `failed` (gave up), `cancelled`. */
    status: p.string(),
    attempts: p.integer().default(0),
    nextAttemptAt: p.datetime().nullable(),
    lastAttemptAt: p.datetime().nullable(),
    lastStatus: p.integer().nullable(),
    lastError: p.string().nullable(),
    deliveredAt: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
});
export type WebhookDeliveryRow = InstanceType<typeof WebhookDelivery.class>;
