/**
 * The ACP CheckoutSession this server answers (a subset of the 2026-04-17 CheckoutSessionBase), as a zod output schema.
 */
import { z } from 'zod';
import { AcpBuyer, AcpFulfillmentDetails } from './request-schemas.ts';
import { ACP_SESSION_STATUSES } from '../../storage/entities/acp.ts';

export const AcpTotal = z.object({
  type: z.enum(['items_base_amount', 'items_discount', 'subtotal', 'discount', 'fulfillment', 'tax', 'fee', 'total']),
  display_text: z.string(),
  amount: z.number().int().describe('Minor units.'),
  description: z.string().optional(),
});

export const AcpMessage = z.object({
  type: z.enum(['info', 'warning', 'error']),
  code: z.string().optional().describe('Warning or error code (out_of_stock, payment_declined, …).'),
  severity: z.enum(['info', 'low', 'medium', 'high', 'critical']).optional(),
  resolution: z.enum(['recoverable', 'requires_buyer_input', 'requires_buyer_review']).optional(),
  param: z.string().optional().describe('RFC 9535 JSONPath into the request.'),
  content_type: z.enum(['plain', 'markdown']),
  content: z.string(),
});
export type AcpMessage = z.infer<typeof AcpMessage>;

export const AcpPaymentHandler = z.object({
  id: z.string(),
  name: z.string(),
  display_name: z.string().optional(),
  version: z.string(),
  spec: z.string(),
  requires_delegate_payment: z.boolean(),
  requires_pci_compliance: z.boolean(),
  psp: z.string(),
  config_schema: z.string(),
  instrument_schemas: z.array(z.string()),
  config: z.object({
    merchant_id: z.string(),
    psp: z.string(),
    accepted_brands: z.array(z.string()),
    supports_3ds: z.boolean(),
    environment: z.string(),
    delegate_payment_url: z.string(),
  }),
});

export const AcpOrder = z.object({
  type: z.literal('order'),
  id: z.string(),
  checkout_session_id: z.string(),
  permalink_url: z.string(),
  status: z.string(),
});

export const AcpLineItem = z.object({
  id: z.string(),
  item: z.object({ id: z.string() }),
  quantity: z.number().int(),
  name: z.string(),
  unit_amount: z.number().int(),
  available_quantity: z.number().int().optional(),
  max_quantity_per_order: z.number().int().optional(),
  totals: z.array(AcpTotal),
});

export const AcpFulfillmentOption = z.object({
  type: z.literal('digital'),
  id: z.string(),
  title: z.string(),
  description: z.string(),
  totals: z.array(AcpTotal),
});

/** The authoritative session state every checkout operation answers. */
export const AcpCheckoutSession = z.object({
  id: z.string().describe('The checkout session id (cs_…).'),
  protocol: z.object({ version: z.string() }),
  capabilities: z.object({
    payment: z.object({ handlers: z.array(AcpPaymentHandler) }),
    interventions: z.object({
      supported: z.array(z.string()),
      required: z.array(z.string()),
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
  links: z.array(z.object({ type: z.string(), url: z.string() })),
  created_at: z.string(),
  updated_at: z.string(),
  expires_at: z.string().optional().describe('When the hold on the tickets ends.'),
  metadata: z.record(z.string(), z.unknown()).optional(),
  order: AcpOrder.optional(),
});
export type AcpCheckoutSessionOut = z.infer<typeof AcpCheckoutSession>;
