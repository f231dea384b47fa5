/** The UCP checkout shapes this server reads and answers (a subset of the 2026-04-08 checkout.json), as zod schemas. */
import { z } from 'zod';
import { secret } from '../../kernel/secret-fields.ts';
import { openObject } from '../acp/request-schemas.ts';
import { UcpDiscountsOut, UcpDiscountsRequest } from './discounts.ts';
import { MAX_LINES } from '../purchase/lines.ts';

const Text = (max: number) => z.string().max(max);

/** The buyer (UCP types/buyer.json): what a platform may send; unknown fields are refused. */
export const UcpBuyer = z
  .strictObject({
    first_name: Text(256).optional().describe('The buyer’s first name.'),
    last_name: Text(256).optional().describe('The buyer’s last name.'),
    email: z.email().max(320).optional().describe('The buyer’s e-mail: the order’s tickets are sent there.'),
    phone_number: Text(40).optional().describe('The buyer’s phone number.'),
  })
  .describe('Who buys (UCP buyer); every field optional.');

/** One line item in a request: the item is a ticket tier (tier_…). */
export const UcpLineItemInput = z.strictObject({
  id: Text(100).optional().describe('The line item id (update only; the session answers li_…).'),
  item: z.strictObject({ id: Text(100).describe('A ticket tier id (tier_…).') }).describe('The item: a ticket tier.'),
  quantity: z.number().int().min(1).max(1000).describe('How many tickets.'),
});

export const UcpCheckoutCreate = z
  .strictObject({
    line_items: z.array(UcpLineItemInput).min(1).max(50).describe('1-20 items, one per ticket tier of one event.'),
    buyer: UcpBuyer.optional(),
    discounts: UcpDiscountsRequest.optional(),
  })
  .describe('The checkout to create (UCP checkout create request).');
export const UcpCheckoutUpdate = z
  .strictObject({
    id: Text(100).optional().describe('The session id, when repeated in the body; it must match the path.'),
    line_items: z.array(UcpLineItemInput).min(1).max(50).describe('Replaces the line items (1-20, one per tier).'),
    buyer: UcpBuyer.optional(),
    discounts: UcpDiscountsRequest.optional(),
  })
  .describe('The checkout’s new line items and buyer (UCP checkout update request).');

/** A selected card instrument from the sandbox tokenizer handler. */
export const UcpInstrumentInput = z.strictObject({
  id: Text(100).describe('The platform’s id for this instrument.'),
  handler_id: Text(100).describe('The handler instance id from the profile (sandbox_card).'),
  type: z.literal('card').describe('The instrument type: card.'),
  selected: z.boolean().optional().describe('Whether this is the instrument to pay with (the first one otherwise).'),
  display: z
    .record(z.string().max(100), z.unknown())
    .meta(openObject('UCP: display data for the platform (brand, last digits); not read'))
    .optional()
    .describe('What the platform shows of the card (brand, last digits); not read.'),
  credential: z
    .strictObject({
      type: Text(50).describe('sandbox_token'),
      token: secret(
        Text(100).describe('A sandbox payment-method token (pm_sandbox_visa, …) from the hosted card form.'),
      ),
    })
    .describe('The token the handler issued for the card.'),
});
export const UcpCheckoutComplete = z
  .strictObject({
    payment: z
      .strictObject({
        instruments: z
          .array(UcpInstrumentInput)
          .min(1)
          .max(4)
          .describe('The payment instruments; the selected one (or the first) pays.'),
      })
      .describe('How the checkout is paid.'),
  })
  .describe('The payment to complete the checkout with (UCP checkout complete request).');
export type UcpCreateInput = z.infer<typeof UcpCheckoutCreate>;
export type UcpUpdateInput = z.infer<typeof UcpCheckoutUpdate>;
export type UcpCompleteInput = z.infer<typeof UcpCheckoutComplete>;

const Total = z.object({ type: Text(30), display_text: Text(100).optional(), amount: z.number().int() });
const Message = z.object({
  type: z.enum(['error', 'warning', 'info']),
  code: Text(50).optional(),
  path: Text(200).optional(),
  content: Text(2100),
  severity: z.enum(['recoverable', 'requires_buyer_input', 'requires_buyer_review', 'unrecoverable']).optional(),
});
const Capability = z.array(z.object({ version: Text(10) })).max(1);

/** The checkout every UCP operation answers, with the negotiated `ucp` metadata. */
export const UcpCheckout = z.object({
  ucp: z.object({
    version: Text(10),
    status: z.enum(['success', 'error']),
    capabilities: z.record(Text(100), Capability),
    payment_handlers: z.record(
      Text(100),
      z
        .array(
          z.object({
            id: Text(100),
            version: Text(10),
            available_instruments: z
              .array(z.object({ type: Text(20), constraints: z.object({ brands: z.array(Text(20)).max(10) }) }))
              .max(2),
            config: z.object({ environment: Text(20), tokenize_url: z.string() }),
          }),
        )
        .max(1),
    ),
  }),
  id: z.string().describe('The checkout session id (cs_…).'),
  status: z.enum([
    'incomplete',
    'requires_escalation',
    'ready_for_complete',
    'complete_in_progress',
    'completed',
    'canceled',
  ]),
  currency: Text(3).describe('ISO 4217, upper case.'),
  buyer: z
    .object({
      first_name: Text(256).optional(),
      last_name: Text(256).optional(),
      email: Text(320).optional(),
      phone_number: Text(40).optional(),
    })
    .optional(),
  line_items: z
    .array(
      z.object({
        id: Text(100),
        item: z.object({ id: Text(100), title: Text(510), price: z.number().int() }),
        quantity: z.number().int(),
        totals: z.array(Total).max(4),
      }),
    )
    .max(MAX_LINES),
  totals: z.array(Total).max(6),
  messages: z.array(Message).max(4),
  links: z.array(z.object({ type: Text(50), url: z.string() })).max(4),
  expires_at: z.string().optional().describe('When the hold on the tickets ends.'),
  order: z.object({ id: Text(100), permalink_url: z.string() }).optional(),
  discounts: UcpDiscountsOut.optional().describe('UCP discount extension: the codes and the discount applied.'),
});
export type UcpCheckoutOut = z.infer<typeof UcpCheckout>;
