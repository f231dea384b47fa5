/**
 * The ACP CheckoutSession this server answers (a subset of the 2026-04-17 CheckoutSessionBase), as a zod output schema.
 */
import { z } from 'zod';
import { AcpBuyer, AcpFulfillmentDetails } from './request-schemas.ts';
import { ACP_SESSION_STATUSES } from '../../storage/entities/acp.ts';
import { CARD_SCHEMES } from '../../kernel/wire.ts';

// Bounds of what sessionView builds (constants, ids, the event title and tier name, error messages): true by
// construction and checked on every answer; OpenAPI carries them. A list of totals holds each AcpTotal type at most
// once.
const Text = (max: number) => z.string().max(max);

export const AcpTotal = z.object({
  type: z.enum(['items_base_amount', 'items_discount', 'subtotal', 'discount', 'fulfillment', 'tax', 'fee', 'total']),
  display_text: Text(100),
  amount: z.number().int().describe('Minor units.'),
  description: Text(200).optional(),
});

export const AcpMessage = z.object({
  type: z.enum(['info', 'warning', 'error']),
  code: Text(50).optional().describe('Warning or error code (out_of_stock, payment_declined, …).'),
  severity: z.enum(['info', 'low', 'medium', 'high', 'critical']).optional(),
  resolution: z.enum(['recoverable', 'requires_buyer_input', 'requires_buyer_review']).optional(),
  param: Text(200).optional().describe('RFC 9535 JSONPath into the request.'),
  content_type: z.enum(['plain', 'markdown']),
  content: Text(2100).describe('An error message (at most 2,000 characters), with its code when it is a decline.'),
});
export type AcpMessage = z.infer<typeof AcpMessage>;

export const AcpPaymentHandler = z.object({
  id: Text(100),
  name: Text(100),
  display_name: Text(100).optional(),
  version: Text(20),
  spec: Text(200),
  requires_delegate_payment: z.boolean(),
  requires_pci_compliance: z.boolean(),
  psp: Text(50),
  config_schema: Text(200),
  instrument_schemas: z.array(Text(200)).max(4),
  config: z.object({
    merchant_id: Text(100),
    psp: Text(50),
    accepted_brands: z.array(Text(20)).max(CARD_SCHEMES.length),
    supports_3ds: z.boolean(),
    environment: Text(20),
    delegate_payment_url: z.string(),
  }),
});

export const AcpOrder = z.object({
  type: z.literal('order'),
  id: z.string(),
  checkout_session_id: z.string(),
  permalink_url: z.string(),
  status: Text(50),
});

export const AcpLineItem = z.object({
  id: z.string(),
  item: z.object({ id: z.string() }),
  quantity: z.number().int(),
  name: Text(510).describe('The event title (at most 300 characters), " — " and the tier name (at most 200).'),
  unit_amount: z.number().int(),
  available_quantity: z.number().int().optional(),
  max_quantity_per_order: z.number().int().optional(),
  totals: z.array(AcpTotal).max(8),
});

export const AcpFulfillmentOption = z.object({
  type: z.literal('digital'),
  id: Text(100),
  title: Text(200),
  description: Text(200),
  totals: z.array(AcpTotal).max(8),
});

/** The authoritative session state every checkout operation answers. */
export const AcpCheckoutSession = z.object({
  id: z.string().describe('The checkout session id (cs_…).'),
  protocol: z.object({ version: Text(20) }),
  capabilities: z.object({
    payment: z.object({ handlers: z.array(AcpPaymentHandler).max(4) }),
    interventions: z.object({
      supported: z.array(Text(50)).max(10),
      required: z.array(Text(50)).max(10),
      enforcement: z.enum(['always', 'conditional', 'optional']),
    }),
  }),
  buyer: AcpBuyer.optional(),
  status: z.enum(ACP_SESSION_STATUSES),
  currency: z.string().describe('ISO 4217, lower case.'),
  locale: z.string().optional(),
  timezone: z.string().optional(),
  line_items: z.array(AcpLineItem),
  fulfillment_details: AcpFulfillmentDetails.optional(),
  fulfillment_options: z.array(AcpFulfillmentOption).max(4),
  selected_fulfillment_options: z.array(
    z.object({
      type: z.enum(['shipping', 'digital', 'pickup', 'local_delivery']),
      option_id: z.string(),
      item_ids: z.array(z.string()),
    }),
  ),
  totals: z.array(AcpTotal).max(8),
  messages: z.array(AcpMessage).max(4).describe('At most one kept from the last write and one the state adds.'),
  links: z.array(z.object({ type: Text(50), url: z.string() })).max(10),
  created_at: z.string(),
  updated_at: z.string(),
  expires_at: z.string().optional().describe('When the hold on the tickets ends.'),
  metadata: z.record(z.string(), z.unknown()).optional(),
  order: AcpOrder.optional(),
});
export type AcpCheckoutSessionOut = z.infer<typeof AcpCheckoutSession>;
