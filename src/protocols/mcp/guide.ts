/**
 * The guided flow an MCP host shows its model: the server `instructions` and the `buy_tickets` prompt (quote → reserve
 * → confirm).
 */
import type { GetPromptResult, Prompt } from '@modelcontextprotocol/sdk/types.js';
import { ToolError } from '../../kernel/errors.ts';

/** The server's `instructions` (sent in the initialize result; hosts put them in the model's context). */
export const INSTRUCTIONS =
  'Tessera sells live-event tickets. tools/list shows only the tools your credential may call. To buy: get_event ' +
  '(or list_events, then get_event) to pick a tier → quote {tierId, quantity} → reserve {quoteId} → confirm {id} ' +
  '(an agent sends no payment method: it pays with its buyer’s card, within the permission). 200 = tickets; 202 = the ' +
  'provider is confirming: do not pay again, poll get_reservation. Every tool answers structured JSON; a refusal is an ' +
  'error result whose first text is "<code>: <message>" and each tool’s description says what its refusals mean. ' +
  'Every call is safe to retry with the same arguments: reserve and confirm return the same hold and payment, never a ' +
  'second one. An optional idempotencyKey argument replays the stored outcome exactly. The buy_tickets prompt walks ' +
  'the flow.';

/** The one prompt; offered to callers that may `quote`. */
export const BUY_TICKETS: Prompt = {
  name: 'buy_tickets',
  title: 'Buy tickets',
  description: 'Walks the purchase: pick a tier of an event, quote, reserve, confirm, and what to do on each refusal.',
  arguments: [
    { name: 'eventId', description: 'The event (evt_…), if known.', required: false },
    { name: 'quantity', description: 'How many tickets (default 1).', required: false },
    {
      name: 'country',
      description: 'The buyer’s country (ISO 3166-1 alpha-2), when the tier sells only to some countries.',
      required: false,
    },
  ],
};

/** The `buy_tickets` messages for the given arguments; a bad quantity is `invalid_input`. */
export function buyTicketsPrompt(args: Record<string, string> = {}): GetPromptResult {
  const unknown = Object.keys(args).filter((k) => !BUY_TICKETS.arguments!.some((a) => a.name === k));
  if (unknown.length)
    throw new ToolError('unknown_field', `Unknown prompt argument: ${unknown.join(', ')}.`, { fields: unknown });
  const quantity = args.quantity ?? '1';
  if (!/^[1-9]\d{0,2}$/.test(quantity))
    throw new ToolError('invalid_input', 'quantity must be a whole number from 1 to 999.', { field: 'quantity' });
  const event = args.eventId ? `event ${args.eventId}` : 'the event the buyer asked for (find it with list_events)';
  const country = args.country ? `, "country": "${args.country}"` : '';
  const text = [
    `Buy ${quantity} ticket(s) for ${event}. Use the Tessera tools, one step at a time:`,
    `1. get_event {"id": "${args.eventId ?? '<eventId>'}"}: choose a tier whose availableCount is at least ${quantity} and whose restrictions fit the buyer.`,
    `2. quote {"tierId": "<tierId>", "quantity": ${quantity}${country}}: check the total with the buyer. Refusals: not_on_sale_yet, sale_ended, not_sellable, quantity_over_limit (buy fewer), country_required / geo_not_allowed (pass or check country), sold_out (another tier).`,
    '3. reserve {"quoteId": "<quoteId>"}: the places are held until reservation.expiresAt. quote_expired: quote again.',
    '4. confirm {"id": "<reservation.id>"}: an agent sends no payment method; a merchant or buyer sends paymentMethod or instrumentId. ' +
      '200: the order and its tickets. 202: do not pay again; poll get_reservation until completed or released. ' +
      'payment_declined / insufficient_funds: the hold stays; another method may be tried. permission_*, over_*_cap, allowance_exhausted: the buyer must widen the permission.',
    'If an answer is lost, call the same tool again with the same arguments: you get the same hold or payment, never a second one.',
  ].join('\n');
  return { description: BUY_TICKETS.description, messages: [{ role: 'user', content: { type: 'text', text } }] };
}
