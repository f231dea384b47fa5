/** What the webhook tools share: wire schemas, row → wire conversion and the ownership check (404 across organizations). */
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { mayAccessShop } from '../../orchestrator/access.ts';
import { ToolError } from '../../orchestrator/errors.ts';
import type { Principal } from '../../orchestrator/principal.ts';
import { Shop } from '../../storage/entities/catalog.ts';
import { WebhookSubscription, type WebhookSubscriptionRow } from '../../storage/entities/webhook.ts';
import { WEBHOOK_EVENT_TYPES } from '../../webhooks/outbox.ts';
import { iso } from '../serialize.ts';

export const EventType = z.enum(WEBHOOK_EVENT_TYPES).describe('A webhook event type.');

/** Auth shared by the webhook tools: API keys (with the given scope) and console users of the owning organization. */
export const webhookAuth = (scope: 'merchant:read' | 'merchant:write') =>
  ({ principals: ['api_key', 'console_user'], scopes: [scope], roles: ['owner', 'integrator'] }) as const;

export const WebhookOut = z.object({
  id: z.string(),
  merchantId: z.string(),
  url: z.string(),
  events: z.array(EventType),
  status: z.enum(['active']),
  createdAt: z.string(),
});

export function webhookOut(w: WebhookSubscriptionRow): z.infer<typeof WebhookOut> {
  return {
    id: w.id,
    merchantId: w.shopId,
    url: w.url,
    events: w.events.filter((e): e is z.infer<typeof EventType> => (WEBHOOK_EVENT_TYPES as readonly string[]).includes(e)),
    status: 'active',
    createdAt: iso(w.createdAt),
  };
}

/** Loads a live subscription whose shop the principal may act on, or throws `not_found`. */
export async function requireWebhook(em: EntityManager, principal: Principal, id: string): Promise<WebhookSubscriptionRow> {
  const webhook = await em.findOne(WebhookSubscription, { id, deletedAt: null });
  const shop = webhook ? await em.findOne(Shop, { id: webhook.shopId, deletedAt: null }) : null;
  if (!webhook || !shop || !mayAccessShop(principal, shop)) throw new ToolError('not_found', `No webhook ${id}.`, { id });
  return webhook;
}
