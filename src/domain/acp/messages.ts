/**
 * ACP's second error layer: a spine refusal the agent can resolve in conversation (sold out, a sale window,
 * a country restriction, a declined card) becomes a `MessageError` inside a valid session, not a 4xx.
 */
import type { ErrorCode, ToolError } from '../../kernel/errors.ts';
import type { AcpMessage } from './session-schema.ts';

const ITEM = '$.line_items[0]';
const COUNTRY = '$.fulfillment_details.address.country';

/** Spine codes that leave the session valid (status not_ready_for_payment), with their ACP message code. */
const HOLD_MESSAGES: Partial<Record<ErrorCode, { code: string; param: string; resolution: AcpMessage['resolution'] }>> =
  {
    sold_out: { code: 'out_of_stock', param: ITEM, resolution: 'recoverable' },
    quantity_over_limit: { code: 'quantity_exceeded', param: `${ITEM}.quantity`, resolution: 'recoverable' },
    not_on_sale_yet: { code: 'invalid', param: ITEM, resolution: 'recoverable' },
    sale_ended: { code: 'expired', param: ITEM, resolution: 'recoverable' },
    not_sellable: { code: 'unsupported', param: ITEM, resolution: 'recoverable' },
    tier_retired: { code: 'unsupported', param: ITEM, resolution: 'recoverable' },
    event_cancelled: { code: 'unsupported', param: ITEM, resolution: 'recoverable' },
    country_required: { code: 'missing', param: COUNTRY, resolution: 'requires_buyer_input' },
    geo_not_allowed: { code: 'region_restricted', param: COUNTRY, resolution: 'requires_buyer_input' },
    quote_expired: { code: 'expired', param: ITEM, resolution: 'recoverable' },
  };

/**
 * The MessageError for a spine refusal made while holding the tickets, or undefined when it must stay a flat error.
 * `item` is the refused line item's path (session-line-param.ts) when the session has several.
 */
export function holdMessage(err: ToolError, item = ITEM): AcpMessage | undefined {
  const m = HOLD_MESSAGES[err.code];
  if (!m) return undefined;
  return {
    type: 'error',
    code: m.code,
    param: m.param.startsWith(ITEM) ? item + m.param.slice(ITEM.length) : m.param,
    resolution: m.resolution,
    content_type: 'plain',
    content: err.message,
  };
}

/** A declined delegated card: the session stays ready for payment with this message. */
export function declinedMessage(err: ToolError): AcpMessage {
  return {
    type: 'error',
    code: 'payment_declined',
    param: '$.payment_data',
    resolution: 'requires_buyer_input',
    content_type: 'plain',
    content: `${err.message} (${err.code})`,
  };
}

export const HOLD_EXPIRED: AcpMessage = {
  type: 'error',
  code: 'expired',
  param: ITEM,
  resolution: 'recoverable',
  content_type: 'plain',
  content: 'The hold on the tickets expired and they were given back; update the session to hold them again.',
};

export const HOLD_RELEASED: AcpMessage = {
  type: 'error',
  code: 'expired',
  param: ITEM,
  resolution: 'recoverable',
  content_type: 'plain',
  content: 'The hold on the tickets was released; update the session to hold them again.',
};

export const ASYNC_DECLINED: AcpMessage = {
  type: 'error',
  code: 'payment_declined',
  param: '$.payment_data',
  resolution: 'requires_buyer_input',
  content_type: 'plain',
  content: 'The payment provider declined the payment after confirming asynchronously; the tickets were given back.',
};

export const PAYMENT_PENDING: AcpMessage = {
  type: 'info',
  content_type: 'plain',
  content:
    'The payment provider is confirming the payment; retrieve the session until it is completed. Do not pay again.',
};

export const CANCELED: AcpMessage = {
  type: 'info',
  content_type: 'plain',
  content: 'Checkout session has been canceled.',
};
