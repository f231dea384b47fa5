/** ACP rows: checkout sessions (state over a spine reservation) and the sandbox vault's delegated payment tokens. */
import { defineEntity, p } from '@mikro-orm/core';

export const ACP_SESSION_STATUSES = [
  'not_ready_for_payment',
  'ready_for_payment',
  'complete_in_progress',
  'completed',
  'canceled',
  'expired',
] as const;
export type AcpSessionStatus = (typeof ACP_SESSION_STATUSES)[number];

/**
 * A checkout session: one tier and quantity (ACP line item), the reservation that holds its places (none
 * while it is not ready for payment), and the ACP fields it echoes (buyer, fulfillment details, …).
 */
export const AcpCheckoutSession = defineEntity({
  name: 'AcpCheckoutSession',
  tableName: 'acp_checkout_sessions',
  properties: {
    id: p.string().primary(),
    shopId: p.string(),
    organizationId: p.string(),
    ownerKey: p.string(),
    buyerId: p.string().nullable(),
    apiVersion: p.string(),
    status: p.enum([...ACP_SESSION_STATUSES]),
    currency: p.string(),
    tierId: p.string(),
    quantity: p.integer(),
    /** Several line items (tier and quantity each; the first is `tierId`/`quantity`); null for one. */
    lines: p.json<{ tierId: string; quantity: number }[]>().nullable(),
    reservationId: p.string().nullable(),
    /** The quote whose hold the session waits for (src/domain/acp/session-hold.ts); null once held or refused. */
    holdQuoteId: p.string().nullable(),
    orderId: p.string().nullable(),
    buyer: p.json<Record<string, unknown>>().nullable(),
    fulfillmentDetails: p.json<Record<string, unknown>>().nullable(),
    capabilities: p.json<Record<string, unknown>>(),
    messages: p.json<Record<string, unknown>[]>(),
    locale: p.string().nullable(),
    timezone: p.string().nullable(),
    orderNotes: p.text().nullable(),
    metadata: p.json<Record<string, unknown>>().nullable(),
    intentTrace: p.json<Record<string, unknown>>().nullable(),
    /** The stored hash of the delegated token that paid (never the token). */
    paymentTokenId: p.string().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    completedAt: p.datetime().nullable(),
    canceledAt: p.datetime().nullable(),
  },
});
export type AcpCheckoutSessionRow = InstanceType<typeof AcpCheckoutSession.class>;

/**
 * A delegated payment token (`vt_…`): the sandbox payment method a test card maps to, display fields and
 * the allowance it may be spent within, once. The card number and CVC are never stored.
 */
export const AcpVaultToken = defineEntity({
  name: 'AcpVaultToken',
  tableName: 'acp_vault_tokens',
  properties: {
    /** The token's keyed hash (`h1:…`; `s256:…` for tokens stored before hashing), never the token. */
    id: p.string().primary(),
    ownerKey: p.string(),
    paymentMethod: p.string(),
    brand: p.string(),
    last4: p.string(),
    fundingType: p.string(),
    maxAmount: p.integer(),
    currency: p.string(),
    checkoutSessionId: p.string(),
    merchantId: p.string(),
    expiresAt: p.datetime(),
    metadata: p.json<Record<string, string>>(),
    createdAt: p.datetime(),
    usedAt: p.datetime().nullable(),
    usedBySession: p.string().nullable(),
  },
});
export type AcpVaultTokenRow = InstanceType<typeof AcpVaultToken.class>;
