/** The registry: every tool the service offers, listed explicitly. Surfaces are generated from this list. */
import type { AnyTool } from '../orchestrator/tool.ts';
import { getEvent } from './catalog/get-event.ts';
import { getShop } from './catalog/get-shop.ts';
import { listEvents } from './catalog/list-events.ts';
import { createEvent } from './integration/create-event.ts';
import { createPool } from './integration/create-pool.ts';
import { createShop } from './integration/create-shop.ts';
import { createTier } from './integration/create-tier.ts';
import { listPools } from './integration/list-pools.ts';
import { verifySignedMandate } from './mandates/verify-signed-mandate.ts';
import { authorizePayment } from './payments/authorize-payment.ts';
import { getPayment } from './payments/get-payment.ts';
import { linkPaymentProvider } from './payments/link-payment-provider.ts';
import { confirm } from './ticketing/confirm.ts';
import { getOrder } from './ticketing/get-order.ts';
import { getReservation } from './ticketing/get-reservation.ts';
import { quote } from './ticketing/quote.ts';
import { release } from './ticketing/release.ts';
import { reserve } from './ticketing/reserve.ts';
import { createWebhook } from './webhooks/create-webhook.ts';
import { deleteWebhook } from './webhooks/delete-webhook.ts';
import { listWebhookDeliveries } from './webhooks/list-webhook-deliveries.ts';
import { listWebhooks } from './webhooks/list-webhooks.ts';

export const TOOLS: readonly AnyTool[] = [
  createShop,
  createEvent,
  createPool,
  listPools,
  createTier,
  getShop,
  listEvents,
  getEvent,
  quote,
  reserve,
  confirm,
  release,
  getReservation,
  getOrder,
  authorizePayment,
  getPayment,
  linkPaymentProvider,
  createWebhook,
  listWebhooks,
  deleteWebhook,
  listWebhookDeliveries,
  verifySignedMandate,
];
