/**
 * UCP's A2A binding (checkout-a2a.md): the UCP extension on the agent card, and a message's UCP data parts
 * (`action`, `a2a.ucp.checkout`, `a2a.ucp.checkout.payment`) read as a call of the same UCP checkout tool the REST and
 * MCP bindings call; the answer is a message whose data part carries the checkout under `a2a.ucp.checkout`.
 */
import type { Message } from '@a2a-js/sdk';
import { UCP_CHECKOUT, UCP_VERSION } from '../../domain/ucp/protocol.ts';
import { ToolError } from '../../kernel/errors.ts';
import { isObject } from './skill-call.ts';

/** The UCP A2A extension URI a platform activates (`X-A2A-Extensions`) and our card advertises. */
export const UCP_A2A_EXTENSION = `https://ucp.dev/${UCP_VERSION}/specification/reference`;
/** ServerCallContext state key: the request's `UCP-Agent` header (the platform's profile). */
export const STATE_UCP_AGENT = 'tessera.ucpAgent';
/** The data part key the checkout travels under, in requests (create, update) and in every answer. */
export const UCP_CHECKOUT_KEY = 'a2a.ucp.checkout';
const PAYMENT_KEY = 'a2a.ucp.checkout.payment';
const SIGNALS_KEY = 'a2a.ucp.checkout.signals';
const KEYS = ['action', 'id', UCP_CHECKOUT_KEY, PAYMENT_KEY, SIGNALS_KEY];

/** The checkout actions, each the UCP tool of the same name. */
export const UCP_ACTIONS = [
  'create_checkout',
  'get_checkout',
  'update_checkout',
  'complete_checkout',
  'cancel_checkout',
] as const;

/** The card's UCP extension: the capabilities this agent serves over the binding. */
export function ucpCardExtension() {
  return {
    uri: UCP_A2A_EXTENSION,
    description:
      'Business agent supporting UCP checkout: send a data part {"action": "create_checkout" | "get_checkout" | ' +
      '"update_checkout" | "complete_checkout" | "cancel_checkout", "id"?} with "a2a.ucp.checkout" or ' +
      '"a2a.ucp.checkout.payment", and the UCP-Agent header; the answer carries "a2a.ucp.checkout".',
    required: false,
    params: { capabilities: { [UCP_CHECKOUT]: [{ version: UCP_VERSION }] } },
  };
}

/** The extension URIs a request activates (the comma-separated `X-A2A-Extensions` header), or undefined. */
export function requestedExtensionsOf(header: string): string[] | undefined {
  const uris = header
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u && u.length <= 500)
    .slice(0, 20);
  return uris.length ? uris : undefined;
}

/** One UCP call read from a message: the tool, its input (the MCP binding's arguments) and the idempotency key. */
export interface UcpCall {
  tool: (typeof UCP_ACTIONS)[number];
  input: Record<string, unknown>;
  idempotencyKey: string;
}

/** Parses `profile="…"` of a UCP-Agent header (RFC 8941 dictionary member), or undefined. */
function profileOf(header: string | undefined): string | undefined {
  return header?.match(/(?:^|[,;\s])profile="([^"]{1,2000})"/)?.[1];
}

/**
 * The UCP call a message carries, or undefined when it carries none: the UCP extension activated (header or message
 * extensions) or a data part with a UCP key. Throws a ToolError for a UCP message that names no supported action.
 */
export function readUcpCall(message: Message, requested: readonly string[], ucpAgent?: string): UcpCall | undefined {
  const data = message.parts.flatMap((p) => (p.content?.$case === 'data' ? [p.content.value as unknown] : []));
  const parts = data.filter(isObject);
  const ucpKeyed = parts.some((d) => Object.keys(d).some((k) => k.startsWith('a2a.ucp.')));
  const activated = [...requested, ...message.extensions].includes(UCP_A2A_EXTENSION);
  if (!activated && !ucpKeyed) return undefined;
  if (parts.some((d) => 'skill' in d)) return undefined; // our own skill envelope, even with the extension active
  const merged: Record<string, unknown> = Object.assign({}, ...parts) as Record<string, unknown>;
  const unknown = Object.keys(merged).filter((k) => !KEYS.includes(k));
  if (unknown.length)
    throw new ToolError('unknown_field', `Unknown field: ${unknown.join(', ')}.`, {
      fields: unknown,
      field: unknown[0],
    });
  const action = merged.action;
  if (typeof action !== 'string' || !(UCP_ACTIONS as readonly string[]).includes(action)) {
    throw new ToolError('invalid_input', `The UCP binding supports the actions ${UCP_ACTIONS.join(', ')}.`, {
      field: 'action',
    });
  }
  const profile = profileOf(ucpAgent);
  if (!profile) throw new ToolError('invalid_profile_url', 'Send the UCP-Agent header: profile="https://…".');
  const meta = { 'ucp-agent': { profile }, 'idempotency-key': message.messageId };
  const payment = merged[PAYMENT_KEY];
  // The payment may be one instrument (the binding's example) or UCP's `{ instruments }`.
  const paid = isObject(payment) && !('instruments' in payment) ? { instruments: [payment] } : payment;
  const checkout = action === 'complete_checkout' ? { payment: paid } : merged[UCP_CHECKOUT_KEY];
  const input: Record<string, unknown> = { meta };
  const body = merged[UCP_CHECKOUT_KEY];
  const id = merged.id ?? (isObject(body) ? body.id : undefined); // the checkout's id may name the session
  if (id !== undefined) input.id = id;
  if (action !== 'get_checkout' && action !== 'cancel_checkout') input.checkout = checkout;
  return { tool: action as UcpCall['tool'], input, idempotencyKey: message.messageId };
}
