/**
 * AP2 (Agent Payments Protocol) is refused, in one place: recognising an AP2 payload (never parsing it
 * further) and the one stable error every surface answers with. AP2 mandates grant no spend authority here.
 */
import { ToolError } from '../../kernel/errors.ts';

/** The A2A extension URIs AP2 is activated with (`https://github.com/google-agentic-commerce/ap2/tree/v0.1`, …). */
const AP2_EXTENSION_URI = /^https?:\/\/github\.com\/google-agentic-commerce\/ap2(?:[/?#]|$)/i;
/** Data keys AP2 carries its mandates under (`ap2.mandates.IntentMandate`, `…CartMandate`, `…PaymentMandate`). */
const AP2_DATA_KEY_PREFIX = 'ap2.mandates.';
/** The `vct` (verifiable credential type) prefix of mandate credentials. */
const MANDATE_VCT_PREFIX = 'mandate.';
/** How deep recognition looks into a JSON value (the work is otherwise bounded by the body size limit). */
const MAX_DEPTH = 8;

/** The supported ways to get spend authority, named in every refusal. */
export const AP2_ALTERNATIVES = [
  { name: 'signed mandate', operation: 'POST /v1/vic/purchase-initiate', tool: 'purchase_initiate' },
  {
    name: 'ACP checkout session',
    operation: 'POST /checkout_sessions (API-Version 2026-04-17)',
    tool: 'create_checkout_session',
  },
  { name: 'permission', operation: 'a buyer-granted permission for an agent (buyer area)', tool: null },
] as const;

/** The refusal: `ap2_unsupported`, naming the supported alternatives. */
export function ap2Refusal(): ToolError {
  return new ToolError(
    'ap2_unsupported',
    'AP2 is not supported pending verified checkout authorization, and AP2 mandates grant no spend authority here. ' +
      'Use a signed mandate (POST /v1/vic/purchase-initiate), an ACP checkout session (POST /checkout_sessions) or a ' +
      'permission the buyer granted to the agent.',
    { protocol: 'ap2', alternatives: AP2_ALTERNATIVES.map((a) => ({ ...a })) },
  );
}

/** True for an AP2 A2A extension URI. */
export function isAp2ExtensionUri(uri: unknown): boolean {
  return typeof uri === 'string' && AP2_EXTENSION_URI.test(uri.trim());
}

/**
 * True when a JSON value carries an AP2 payload: a key starting with `ap2.mandates.` or a `vct` string
 * starting with `mandate.`, up to eight levels deep. Strings are never decoded or parsed.
 */
export function isAp2Payload(value: unknown, depth = 0): boolean {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((v) => isAp2Payload(v, depth + 1));
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (key.startsWith(AP2_DATA_KEY_PREFIX)) return true;
    const v = (value as Record<string, unknown>)[key];
    if (key === 'vct' && typeof v === 'string' && v.startsWith(MANDATE_VCT_PREFIX)) return true;
    if (isAp2Payload(v, depth + 1)) return true;
  }
  return false;
}

/** True for an A2A message that activates an AP2 extension or carries AP2 mandate data (in any data part). */
export function isAp2Request(extensionUris: readonly unknown[], dataParts: readonly unknown[]): boolean {
  return extensionUris.some(isAp2ExtensionUri) || dataParts.some((d) => isAp2Payload(d));
}
