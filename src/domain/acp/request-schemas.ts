/**
 * ACP 2026-04-17 request bodies as zod (the subset this server implements), checked field by field against
 * schema.agentic_checkout.json. Objects are strict like the ACP schema; fields ACP defines that we do not
 * implement are refused as unknown (docs/acp.md lists them), never silently dropped.
 */
import { z } from 'zod';
import { secret } from '../../kernel/secret-fields.ts';
import { AcpDiscountsRequest } from './discount-schemas.ts';

/** Marks an object whose keys are open by protocol (the registry test accepts only these as open). */
export const openObject = (why: string) => ({ 'x-open-object': why });

export const AcpAddress = z.strictObject({
  name: z.string().max(256).describe('Name of the person or business at the address (up to 256 characters).'),
  line_one: z.string().max(60).describe('First line of the street address (up to 60 characters).'),
  line_two: z.string().max(60).optional().describe('Second line of the street address (up to 60 characters).'),
  city: z.string().max(60).describe('City, district, suburb, town or village (up to 60 characters).'),
  state: z.string().max(60).describe('State, county, province or region (up to 60 characters).'),
  country: z
    .string()
    .max(100)
    .describe('ISO 3166-1 alpha-2 country code; checked against the tier’s allowed countries.'),
  postal_code: z.string().max(20).describe('Postal or ZIP code (up to 20 characters).'),
  company: z.string().max(256).optional().describe('Company name, if any (up to 256 characters).'),
});

export const AcpFulfillmentDetails = z
  .strictObject({
    name: z.string().max(256).optional().describe('Name of the person receiving the order.'),
    phone_number: z.string().max(40).optional().describe('Recipient phone number, E.164 recommended.'),
    email: z.email().max(320).optional().describe('Recipient email address; the tickets are sent there.'),
    address: AcpAddress.optional().describe('Recipient address.'),
  })
  .describe('Where and to whom the order is fulfilled.');

export const AcpBuyer = z
  .strictObject({
    first_name: z.string().max(256).optional().describe('Buyer first name.'),
    last_name: z.string().max(256).optional().describe('Buyer last name.'),
    full_name: z.string().max(512).optional().describe('Buyer full name, when first and last are not split.'),
    email: z.email().max(320).describe('Buyer email address.'),
    phone_number: z.string().max(40).optional().describe('Buyer phone number, E.164 recommended.'),
    customer_id: z
      .string()
      .max(256)
      .optional()
      .describe('The buyer’s customer id in the agent’s or merchant’s system.'),
    account_type: z
      .enum(['guest', 'registered', 'business'])
      .optional()
      .describe('Kind of buyer account: guest, registered or business.'),
    authentication_status: z
      .enum(['authenticated', 'guest', 'requires_signin'])
      .optional()
      .describe('Whether the buyer is signed in with the merchant.'),
  })
  .describe('The buyer: email required, the rest optional.');

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

export const AcpAgentCapabilities = z
  .strictObject({
    interventions: z
      .strictObject({
        supported: z
          .array(z.enum(INTERVENTIONS))
          .max(10)
          .optional()
          .describe('Interventions the agent can present to the buyer (3ds, biometric, address_verification).'),
        display_context: z
          .enum(['native', 'webview', 'modal', 'redirect'])
          .optional()
          .describe('How the agent displays an intervention.'),
        redirect_context: z
          .enum(['in_app', 'external_browser', 'none'])
          .optional()
          .describe('Where a redirect opens, or none if the agent cannot redirect.'),
        max_redirects: z.number().int().min(0).optional().describe('Most redirects the agent follows in one flow.'),
        max_interaction_depth: z
          .number()
          .int()
          .min(1)
          .optional()
          .describe('Most nested interaction steps the agent supports.'),
      })
      .optional()
      .describe('The interventions (e.g. 3-D Secure) the agent can handle.'),
    extensions: z
      .array(z.string().max(200))
      .max(50)
      .optional()
      .describe('Extensions the agent understands; none is active here.'),
  })
  .describe('What the agent can handle ({} is fine).');

export const AcpSelectedFulfillmentOption = z.strictObject({
  type: z.enum(['shipping', 'digital', 'pickup', 'local_delivery']).describe('The kind of fulfillment option.'),
  option_id: z.string().max(200).describe('The id of a fulfillment option the session offers.'),
  item_ids: z.array(z.string().max(200)).max(50).describe('The line item ids this option fulfills.'),
});

const OrderNotes = z
  .string()
  .max(5000)
  .describe('Free-text notes from the buyer for the merchant (up to 5000 characters).');
const Metadata = z
  .record(z.string().max(200), z.unknown())
  .meta(openObject('ACP: arbitrary metadata for merchant use'))
  .describe('Arbitrary key-value metadata for the merchant’s use.');

export const CheckoutSessionCreateRequest = z.strictObject({
  buyer: AcpBuyer.optional(),
  line_items: z
    .array(AcpItem)
    .min(1)
    .max(50)
    .describe('One item per ticket tier, 1-20 items, all tiers of one event (each tier once).'),
  currency: z
    .string()
    .max(3)
    .regex(/^[A-Za-z]{3}$/, 'must be an ISO 4217 code')
    .describe('ISO 4217; must be the shop currency.'),
  fulfillment_details: AcpFulfillmentDetails.optional(),
  capabilities: AcpAgentCapabilities,
  locale: z.string().max(35).optional().describe('The buyer’s locale, a BCP 47 tag (e.g. en-US).'),
  timezone: z.string().max(64).optional().describe('The buyer’s time zone, an IANA name (e.g. Europe/Berlin).'),
  metadata: Metadata.optional(),
  order_notes: OrderNotes.optional(),
  discounts: AcpDiscountsRequest.optional(),
});

export const CheckoutSessionUpdateRequest = z.strictObject({
  buyer: AcpBuyer.optional(),
  line_items: z
    .array(AcpItem)
    .min(1)
    .max(50)
    .optional()
    .describe('Replaces the line items: one per ticket tier, 1-20, all tiers of one event.'),
  fulfillment_details: AcpFulfillmentDetails.optional(),
  selected_fulfillment_options: z
    .array(AcpSelectedFulfillmentOption)
    .max(10)
    .optional()
    .describe('The fulfillment options the buyer chose, by option id.'),
  order_notes: OrderNotes.optional(),
  discounts: AcpDiscountsRequest.optional(),
});

export const AcpPaymentData = z
  .strictObject({
    handler_id: z.string().max(100).describe('The handler id the session offers (card_tokenized).'),
    instrument: z
      .strictObject({
        type: z.string().max(50).describe('card'),
        credential: z
          .strictObject({
            type: z.string().max(50).describe('spt (a delegated payment token).'),
            token: secret(z.string().max(200).describe('The delegated payment token (vt_…) from delegate_payment.')),
          })
          .describe('The credential: a delegated payment token.'),
      })
      .describe('The payment instrument: a card paid with a delegated token.'),
    billing_address: AcpAddress.optional().describe('Billing address of the payment instrument.'),
  })
  .describe('How the buyer pays: the handler and a delegated payment token.');

export const CheckoutSessionCompleteRequest = z.strictObject({
  buyer: AcpBuyer.optional(),
  payment_data: AcpPaymentData,
  order_notes: OrderNotes.optional(),
});

export const CancelSessionRequest = z
  .strictObject({
    intent_trace: z
      .strictObject({
        reason_code: z
          .string()
          .max(100)
          .describe('price_sensitivity, shipping_cost, …, other; unrecognised values are kept and treated as other.'),
        trace_summary: z.string().max(500).optional().describe('Short free-text summary of why the buyer left.'),
        metadata: z
          .record(z.string().max(200), z.union([z.string().max(1000), z.number(), z.boolean()]))
          .meta(openObject('ACP: intent trace metadata'))
          .optional()
          .describe('Extra context: string, number or boolean values.'),
      })
      .optional()
      .describe('Why the buyer cancelled: a reason code, an optional summary and metadata.'),
  })
  .describe('The ACP cancel request: an optional intent_trace.');

export type CreateRequest = z.infer<typeof CheckoutSessionCreateRequest>;
export type UpdateRequest = z.infer<typeof CheckoutSessionUpdateRequest>;
export type CompleteRequest = z.infer<typeof CheckoutSessionCompleteRequest>;
export type CancelRequest = z.infer<typeof CancelSessionRequest>;
export type AcpItemInput = z.infer<typeof AcpItem>;
