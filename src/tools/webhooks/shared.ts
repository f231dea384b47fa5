/** What the webhook tools share: wire schemas and auth. */
import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from '../../webhooks/outbox.ts';

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
