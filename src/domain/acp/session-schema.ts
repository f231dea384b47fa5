/**
 * The ACP CheckoutSession this server answers (a subset of the 2026-04-17 CheckoutSessionBase), as a zod output schema.
 */
import { z } from 'zod';
import { AcpBuyer, AcpFulfillmentDetails } from './request-schemas.ts';
import { ACP_SESSION_STATUSES } from '../../storage/entities/acp.ts';
import { AcpDiscounts } from './discount-schemas.ts';

// Bounds of what sessionView builds (constants, ids, the event title and tier name, error messages): true by
// construction and checked on every answer; OpenAPI carries them (its lists are bounded in src/rest/openapi-bounds.ts,
// so the SDK's types stay arrays). A line item's name is the event title (300), " — " and the tier name (200); a
// message's content an error message (2,000) with its code.
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
  content: Text(2100),
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
  instrument_schemas: z.array(Text(200)),
  config: z.object({
    merchant_id: Text(100),
    psp: Text(50),
    accepted_brands: z.array(Text(20)),
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
  name: Text(510),
  unit_amount: z.number().int(),
  available_quantity: z.number().int().optional(),
  max_quantity_per_order: z.number().int().optional(),
  totals: z.array(AcpTotal),
});

export const AcpFulfillmentOption = z.object({
  type: z.literal('digital'),
  id: Text(100),
  title: Text(200),
  description: Text(200),
  totals: z.array(AcpTotal),
});

/** The authoritative session state every checkout operation answers. */
export const AcpCheckoutSession = z.object({
  id: z.string().describe('The checkout session id (cs_…).'),
  protocol: z.object({ version: Text(20) }),
  capabilities: z.object({
    payment: z.object({ handlers: z.array(AcpPaymentHandler) }),
    interventions: z.object({
      supported: z.array(Text(50)),
      required: z.array(Text(50)),
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
  fulfillment_options: z.array(AcpFulfillmentOption),
  selected_fulfillment_options: z.array(
    z.object({
      type: z.enum(['shipping', 'digital', 'pickup', 'local_delivery']),
      option_id: z.string(),
      item_ids: z.array(z.string()),
    }),
  ),
  totals: z.array(AcpTotal),
  messages: z.array(AcpMessage),
  links: z.array(z.object({ type: Text(50), url: z.string() })),
  created_at: z.string(),
  updated_at: z.string(),
  expires_at: z.string().optional().describe('When the hold on the tickets ends.'),
  metadata: z.record(z.string(), z.unknown()).optional(),
  order: AcpOrder.optional(),
  discounts: AcpDiscounts.optional().describe('ACP discount extension: the code applied and the codes rejected.'),
});
export type AcpCheckoutSessionOut = z.infer<typeof AcpCheckoutSession>;
