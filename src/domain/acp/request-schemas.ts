/**
 * ACP 2026-04-17 request bodies as zod (the subset this server implements), checked field by field against
 * schema.agentic_checkout.json. Objects are strict like the ACP schema; fields ACP defines that we do not
 * implement are refused as unknown (docs/acp.md lists them), never silently dropped.
 */
import { z } from 'zod';
import { secret } from '../../kernel/secret-fields.ts';

/** Marks an object whose keys are open by protocol (the registry test accepts only these as open). */
export const openObject = (why: string) => ({ 'x-open-object': why });

export const AcpAddress = z.strictObject({
  name: z.string().max(256),
  line_one: z.string().max(60),
  line_two: z.string().max(60).optional(),
  city: z.string().max(60),
  state: z.string().max(60),
  country: z
    .string()
    .max(100)
    .describe('ISO 3166-1 alpha-2 country code; checked against the tier’s allowed countries.'),
  postal_code: z.string().max(20),
  company: z.string().max(256).optional(),
});

export const AcpFulfillmentDetails = z.strictObject({
  name: z.string().max(256).optional(),
  phone_number: z.string().max(40).optional(),
  email: z.email().max(320).optional(),
  address: AcpAddress.optional(),
});

export const AcpBuyer = z.strictObject({
  first_name: z.string().max(256).optional(),
  last_name: z.string().max(256).optional(),
  full_name: z.string().max(512).optional(),
  email: z.email().max(320),
  phone_number: z.string().max(40).optional(),
  customer_id: z.string().max(256).optional(),
  account_type: z.enum(['guest', 'registered', 'business']).optional(),
  authentication_status: z.enum(['authenticated', 'guest', 'requires_signin']).optional(),
});

/**
 * A requested item: `id` is a ticket tier id (`tier_…`). `quantity` is a documented deviation (ACP's request
 * Item has none, see ACP issue #264): tickets are bought N at a time; it defaults to 1.
 */
export const AcpItem = z.strictObject({
  id: z.string().min(1).max(100).describe('The ticket tier id (tier_…) to buy.'),
  name: z.string().max(500).optional().describe('Ignored: the session answers the authoritative name.'),
  unit_amount: z.number().int().optional().describe('Ignored: the session answers the authoritative price.'),
  quantity: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .describe(
      'Number of tickets (default 1). A deviation from ACP, whose request item has no quantity (ACP issue #264).',
    ),
});

const INTERVENTIONS = ['3ds', 'biometric', 'address_verification'] as const;

export const AcpAgentCapabilities = z.strictObject({
  interventions: z
    .strictObject({
      supported: z.array(z.enum(INTERVENTIONS)).max(10).optional(),
      display_context: z.enum(['native', 'webview', 'modal', 'redirect']).optional(),
      redirect_context: z.enum(['in_app', 'external_browser', 'none']).optional(),
      max_redirects: z.number().int().min(0).optional(),
      max_interaction_depth: z.number().int().min(1).optional(),
    })
    .optional(),
  extensions: z
    .array(z.string().max(200))
    .max(50)
    .optional()
    .describe('Extensions the agent understands; none is active here.'),
});

export const AcpSelectedFulfillmentOption = z.strictObject({
  type: z.enum(['shipping', 'digital', 'pickup', 'local_delivery']),
  option_id: z.string().max(200),
  item_ids: z.array(z.string().max(200)).max(50),
});

const OrderNotes = z.string().max(5000);
const Metadata = z
  .record(z.string().max(200), z.unknown())
  .meta(openObject('ACP: arbitrary metadata for merchant use'));

export const CheckoutSessionCreateRequest = z.strictObject({
  buyer: AcpBuyer.optional(),
  line_items: z.array(AcpItem).min(1).max(50).describe('Exactly one item (one tier) per session here.'),
  currency: z
    .string()
    .max(3)
    .regex(/^[A-Za-z]{3}$/, 'must be an ISO 4217 code')
    .describe('ISO 4217; must be the shop currency.'),
  fulfillment_details: AcpFulfillmentDetails.optional(),
  capabilities: AcpAgentCapabilities,
  locale: z.string().max(35).optional(),
  timezone: z.string().max(64).optional(),
  metadata: Metadata.optional(),
  order_notes: OrderNotes.optional(),
});

export const CheckoutSessionUpdateRequest = z.strictObject({
  buyer: AcpBuyer.optional(),
  line_items: z.array(AcpItem).min(1).max(50).optional(),
  fulfillment_details: AcpFulfillmentDetails.optional(),
  selected_fulfillment_options: z.array(AcpSelectedFulfillmentOption).max(10).optional(),
  order_notes: OrderNotes.optional(),
});

export const AcpPaymentData = z.strictObject({
  handler_id: z.string().max(100).describe('The handler id the session offers (card_tokenized).'),
  instrument: z.strictObject({
    type: z.string().max(50).describe('card'),
    credential: z.strictObject({
      type: z.string().max(50).describe('spt (a delegated payment token).'),
      token: secret(z.string().max(200).describe('The delegated payment token (vt_…) from delegate_payment.')),
    }),
  }),
  billing_address: AcpAddress.optional(),
});

export const CheckoutSessionCompleteRequest = z.strictObject({
  buyer: AcpBuyer.optional(),
  payment_data: AcpPaymentData,
  order_notes: OrderNotes.optional(),
});

export const CancelSessionRequest = z.strictObject({
  intent_trace: z
    .strictObject({
      reason_code: z
        .string()
        .max(100)
        .describe('price_sensitivity, shipping_cost, …, other; unrecognised values are kept and treated as other.'),
      trace_summary: z.string().max(500).optional(),
      metadata: z
        .record(z.string().max(200), z.union([z.string().max(1000), z.number(), z.boolean()]))
        .meta(openObject('ACP: intent trace metadata'))
        .optional(),
    })
    .optional(),
});

export type CreateRequest = z.infer<typeof CheckoutSessionCreateRequest>;
export type UpdateRequest = z.infer<typeof CheckoutSessionUpdateRequest>;
export type CompleteRequest = z.infer<typeof CheckoutSessionCompleteRequest>;
export type CancelRequest = z.infer<typeof CancelSessionRequest>;
export type AcpItemInput = z.infer<typeof AcpItem>;
