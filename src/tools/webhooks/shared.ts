/** What the webhook tools share: wire schemas and auth. */
import { z } from 'zod';
import { DELIVERY_STATUSES } from '../../domain/merchants/webhook-subscriptions.ts';
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

export const DeliveryStatus = z.enum(DELIVERY_STATUSES);

export const DeliveryOut = z.object({
  id: z.string(),
  webhookId: z.string(),
  eventId: z.string().describe('Sent as the webhook-id header; the same on every attempt.'),
  type: z.string(),
  status: DeliveryStatus.describe(
    'pending (an attempt is due at nextAttemptAt), delivered, failed (gave up) or cancelled.',
  ),
  attempts: z.number().int(),
  lastHttpStatus: z.number().int().nullable().describe('The HTTP status of the last attempt, null when none answered.'),
  lastError: z.string().nullable().describe('Why the last attempt failed, in short.'),
  lastAttemptAt: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  createdAt: z.string(),
});
