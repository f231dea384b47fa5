/**
 * The ACP 2026-04-17 shapes the tests hold this server to, written as our own zod schemas: the fields we send or
 * answer, their types, enums and required members, and no unknown members where the spec forbids them. The check
 * against the official JSON Schemas is `npm run conformance:acp` (scripts/conformance-acp.ts).
 */
import { z } from 'zod';

const Minor = z.number().int();
const ApiVersion = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const DateTime = z.iso.datetime({ offset: true });
const Severity = z.enum(['info', 'low', 'medium', 'high', 'critical']).optional();
const Resolution = z.enum(['recoverable', 'requires_buyer_input', 'requires_buyer_review']).optional();
const ContentType = z.enum(['plain', 'markdown']);

const Total = z.strictObject({
  type: z.enum([
    'items_base_amount',
    'items_discount',
    'subtotal',
    'discount',
    'fulfillment',
    'tax',
    'fee',
    'gift_wrap',
    'tip',
    'store_credit',
    'total',
    'amount_refunded',
  ]),
  display_text: z.string(),
  amount: Minor,
  presentment_amount: Minor.optional(),
  description: z.string().optional(),
});

const messageOf = <T extends string>(type: T, code: z.ZodType) =>
  z.strictObject({
    type: z.literal(type),
    code,
    severity: Severity,
    resolution: Resolution,
    param: z.string().optional(),
    content_type: ContentType,
    content: z.string(),
  });
const Message = z.discriminatedUnion('type', [
  messageOf('info', z.string().optional()),
  messageOf(
    'warning',
    z.enum([
      'low_stock',
      'high_demand',
      'shipping_delay',
      'price_change',
      'expiring_promotion',
      'limited_availability',
    ]),
  ),
  messageOf(
    'error',
    z.enum([
      'missing',
      'invalid',
      'out_of_stock',
      'payment_declined',
      'requires_sign_in',
      'requires_3ds',
      'low_stock',
      'quantity_exceeded',
      'minimum_not_met',
      'maximum_exceeded',
      'region_restricted',
      'age_verification_required',
      'approval_required',
      'unsupported',
      'not_found',
      'conflict',
      'rate_limited',
      'expired',
      'intervention_required',
    ]),
  ),
]);

const Buyer = z.strictObject({
  first_name: z.string().optional(),
  last_name: z.string().optional(),
  full_name: z.string().optional(),
  email: z.email(),
  phone_number: z.string().optional(),
  customer_id: z.string().optional(),
});

const Item = z.strictObject({ id: z.string(), name: z.string().optional(), unit_amount: Minor.optional() });

const LineItem = z.strictObject({
  id: z.string(),
  item: Item,
  quantity: z.number().int().min(1),
  name: z.string().optional(),
  description: z.string().optional(),
  unit_amount: Minor.optional(),
  available_quantity: z.number().int().min(0).optional(),
  max_quantity_per_order: z.number().int().min(1).optional(),
  totals: z.array(Total),
});

const PaymentHandler = z.strictObject({
  id: z.string(),
  name: z.string(),
  display_name: z.string().optional(),
  version: ApiVersion,
  spec: z.url(),
  requires_delegate_payment: z.boolean(),
  requires_pci_compliance: z.boolean(),
  psp: z.string(),
  config_schema: z.url(),
  instrument_schemas: z.array(z.url()),
  config: z.record(z.string(), z.unknown()),
});

const Capabilities = z.strictObject({
  payment: z.strictObject({ handlers: z.array(PaymentHandler) }).optional(),
  interventions: z
    .strictObject({
      supported: z.array(z.enum(['3ds', 'biometric', 'address_verification'])).optional(),
      required: z.array(z.enum(['3ds', 'biometric'])).optional(),
      enforcement: z.enum(['always', 'conditional', 'optional']).optional(),
    })
    .optional(),
  extensions: z.array(z.unknown()).optional(),
});

const Order = z.strictObject({
  type: z.literal('order').optional(),
  id: z.string(),
  checkout_session_id: z.string(),
  order_number: z.string().optional(),
  permalink_url: z.url(),
  status: z.string().optional(),
});

/**
 * The order-webhook shapes (openapi.agentic_checkout_webhook.yaml: `WebhookEvent`, `EventDataOrder` = the full
 * `Order`).
 */
const LineItemReference = z.strictObject({ id: z.string(), quantity: z.number().int().min(1) });
const OrderLineItem = z.strictObject({
  id: z.string(),
  title: z.string(),
  product_id: z.string().optional(),
  description: z.string().optional(),
  image_url: z.url().optional(),
  url: z.url().optional(),
  quantity: z.strictObject({
    ordered: z.number().int().min(1),
    current: z.number().int().min(0),
    fulfilled: z.number().int().min(0).optional(),
  }),
  unit_price: Minor.optional(),
  subtotal: Minor.optional(),
  totals: z.array(Total).optional(),
  status: z.string().optional(),
});
const Fulfillment = z.strictObject({
  id: z.string(),
  type: z.enum(['shipping', 'pickup', 'digital']),
  status: z.string().optional(),
  line_items: z.array(LineItemReference).optional(),
  description: z.string().optional(),
  digital_delivery: z
    .strictObject({
      access_url: z.url().optional(),
      license_key: z.string().optional(),
      expires_at: DateTime.optional(),
    })
    .optional(),
});
const Adjustment = z.strictObject({
  id: z.string(),
  type: z.string(),
  occurred_at: DateTime,
  status: z.string(),
  line_items: z.array(LineItemReference).optional(),
  amount: Minor.optional(),
  currency: z
    .string()
    .regex(/^[a-z]{3}$/)
    .optional(),
  description: z.string().optional(),
  reason: z.string().optional(),
});
const EventDataOrder = z.strictObject({
  type: z.literal('order'),
  id: z.string(),
  checkout_session_id: z.string(),
  order_number: z.string().optional(),
  client_reference_id: z.string().optional(),
  permalink_url: z.url(),
  status: z.string(),
  line_items: z.array(OrderLineItem).optional(),
  fulfillments: z.array(Fulfillment).optional(),
  adjustments: z.array(Adjustment).optional(),
  totals: z.array(Total).optional(),
});
/** ACP's webhook request body. */
export const WEBHOOK_SHAPES = {
  WebhookEvent: z.strictObject({ type: z.string(), data: EventDataOrder }),
} as const;

const sessionFields = {
  id: z.string(),
  protocol: z.strictObject({ version: ApiVersion }).optional(),
  capabilities: Capabilities,
  buyer: Buyer.optional(),
  status: z.enum([
    'incomplete',
    'not_ready_for_payment',
    'requires_escalation',
    'authentication_required',
    'ready_for_payment',
    'pending_approval',
    'complete_in_progress',
    'completed',
    'canceled',
    'in_progress',
    'expired',
  ]),
  currency: z.string(),
  locale: z.string().optional(),
  timezone: z.string().optional(),
  line_items: z.array(LineItem),
  fulfillment_details: z.record(z.string(), z.unknown()).optional(),
  fulfillment_options: z.array(
    z.strictObject({
      type: z.literal('digital'),
      id: z.string(),
      title: z.string(),
      description: z.string().optional(),
      totals: z.array(Total),
    }),
  ),
  selected_fulfillment_options: z
    .array(
      z.strictObject({
        type: z.enum(['shipping', 'digital', 'pickup', 'local_delivery']),
        option_id: z.string(),
        item_ids: z.array(z.string()),
      }),
    )
    .optional(),
  totals: z.array(Total),
  messages: z.array(Message),
  links: z.array(
    z.strictObject({
      type: z.enum([
        'terms_of_use',
        'privacy_policy',
        'return_policy',
        'shipping_policy',
        'contact_us',
        'about_us',
        'faq',
        'support',
      ]),
      title: z.string().optional(),
      url: z.url(),
    }),
  ),
  created_at: DateTime.optional(),
  updated_at: DateTime.optional(),
  expires_at: DateTime.optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  order: Order.optional(),
};

const CheckoutSession = z.strictObject(sessionFields);

const AcpError = z.strictObject({
  type: z.enum(['invalid_request', 'processing_error', 'service_unavailable']),
  code: z.string(),
  message: z.string(),
  param: z.string().optional(),
  supported_versions: z.array(ApiVersion).optional(),
});

/** The bodies the ACP checkout tests check, by the name the spec's `$defs` give them. */
export const CHECKOUT_SHAPES = {
  CheckoutSession,
  CheckoutSessionWithOrder: z.strictObject({ ...sessionFields, order: Order }),
  Error: AcpError,
  DiscoveryResponse: z.strictObject({
    protocol: z.strictObject({
      name: z.literal('acp'),
      version: ApiVersion,
      supported_versions: z.array(ApiVersion),
      documentation_url: z.url().optional(),
    }),
    api_base_url: z.url(),
    transports: z.array(z.enum(['rest', 'mcp'])),
    capabilities: z.strictObject({
      services: z.array(z.enum(['checkout', 'orders', 'delegate_payment', 'carts'])).optional(),
      extensions: z.array(z.unknown()).optional(),
      intervention_types: z.array(z.enum(['3ds', 'biometric', 'address_verification'])).optional(),
    }),
  }),
  CheckoutSessionCreateRequest: z.strictObject({
    buyer: Buyer.optional(),
    line_items: z.array(Item).min(1),
    currency: z.string(),
    capabilities: Capabilities,
    locale: z.string().optional(),
    timezone: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    fulfillment_details: z.record(z.string(), z.unknown()).optional(),
  }),
  CheckoutSessionUpdateRequest: z.strictObject({
    buyer: Buyer.optional(),
    line_items: z.array(Item).optional(),
    fulfillment_details: z.record(z.string(), z.unknown()).optional(),
    selected_fulfillment_options: z.array(z.unknown()).optional(),
  }),
  CheckoutSessionCompleteRequest: z.strictObject({
    buyer: Buyer.optional(),
    payment_data: z.strictObject({
      handler_id: z.string(),
      instrument: z.strictObject({
        type: z.string(),
        credential: z.strictObject({ type: z.string(), token: z.string() }),
      }),
      billing_address: z.record(z.string(), z.unknown()).optional(),
    }),
  }),
  CancelSessionRequest: z.object({ intent_trace: z.record(z.string(), z.unknown()).optional() }),
} as const;

/** The bodies of the delegate-payment (vault) tests. */
export const DELEGATE_SHAPES = {
  DelegatePaymentRequest: z.strictObject({
    payment_method: z.strictObject({
      type: z.literal('card'),
      card_number_type: z.enum(['fpan', 'network_token']),
      virtual: z.boolean().optional(),
      number: z.string(),
      exp_month: z.string().max(2).optional(),
      exp_year: z.string().max(4).optional(),
      name: z.string().optional(),
      cvc: z.string().max(4).optional(),
      display_card_funding_type: z.enum(['credit', 'debit', 'prepaid']),
      display_last4: z
        .string()
        .regex(/^[0-9]{4}$/)
        .optional(),
      metadata: z.record(z.string(), z.string()),
    }),
    allowance: z.strictObject({
      reason: z.literal('one_time'),
      max_amount: Minor,
      currency: z.string().regex(/^[a-z]{3}$/),
      checkout_session_id: z.string(),
      merchant_id: z.string(),
      expires_at: DateTime,
    }),
    billing_address: z.record(z.string(), z.unknown()).optional(),
    risk_signals: z.array(
      z.strictObject({
        type: z.literal('card_testing'),
        score: z.number().int(),
        action: z.enum(['blocked', 'manual_review', 'authorized']),
      }),
    ),
    metadata: z.record(z.string(), z.string()),
  }),
  DelegatePaymentResponse: z.strictObject({
    id: z.string(),
    created: DateTime,
    metadata: z.record(z.string(), z.string()),
  }),
  Error: z.strictObject({
    type: z.enum(['invalid_request', 'rate_limit_exceeded', 'processing_error', 'service_unavailable']),
    code: z.enum([
      'invalid_card',
      'duplicate_request',
      'idempotency_conflict',
      'too_many_requests',
      'idempotency_key_required',
      'idempotency_in_flight',
    ]),
    message: z.string(),
    param: z.string().optional(),
    supported_versions: z.array(ApiVersion).optional(),
  }),
} as const;
