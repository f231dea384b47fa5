/** The Universal Commerce Protocol (UCP 2026-04-08) as this server speaks it: version, names, the sandbox handler. */
import { CARD_SCHEMES } from '../../kernel/wire.ts';

/** The one UCP version served; a checkout's `ucp.version`. */
export const UCP_VERSION = '2026-04-08';
/** The spec's capability names this server knows (the checkout capability is the only one served). */
export const UCP_CHECKOUT = 'dev.ucp.shopping.checkout';
export const UCP_SHOPPING_SERVICE = 'dev.ucp.shopping';
/** The order capability: signed order webhooks to the platform's `config.webhook_url` (order-webhooks.ts). */
export const UCP_ORDER = 'dev.ucp.shopping.order';
/** The catalog capabilities: search and lookup over the public discovery data (catalog.ts). */
export const UCP_CATALOG_SEARCH = 'dev.ucp.shopping.catalog.search';
export const UCP_CATALOG_LOOKUP = 'dev.ucp.shopping.catalog.lookup';
/** Identity linking: a platform links a buyer through our OAuth server and acts as that buyer's agent. */
export const UCP_IDENTITY_LINKING = 'dev.ucp.common.identity_linking';
/**
 * Capabilities the specification defines that this server declines (never advertised, so never negotiated):
 * tickets are digital (no fulfillment/shipping), AP2 mandates are refused as everywhere (ap2_unsupported), and
 * cart and discount are not built yet (docs/ucp.md).
 */
export const UCP_DECLINED = [
  'dev.ucp.shopping.fulfillment',
  'dev.ucp.shopping.ap2_mandate',
  'dev.ucp.shopping.cart',
] as const;

/** The sandbox provider's tokenizer handler: its name in `payment_handlers`, and its instance id. */
export const UCP_SANDBOX_HANDLER = 'com.tessera.sandbox_tokenizer';
export const UCP_SANDBOX_HANDLER_ID = 'sandbox_card';
/** The card brands the sandbox handler accepts (a tier's `allowedSchemes` may narrow them at complete). */
export const UCP_CARD_BRANDS: readonly string[] = CARD_SCHEMES;

const spec = (page: string) => `https://ucp.dev/${UCP_VERSION}/specification/${page}`;

/** The checkout capability's declaration (profile and responses). */
export function checkoutCapability() {
  return {
    version: UCP_VERSION,
    spec: spec('checkout'),
    schema: `https://ucp.dev/${UCP_VERSION}/schemas/shopping/checkout.json`,
  };
}

/** A catalog capability's declaration (profile): `search` or `lookup`. */
export function catalogCapability(kind: 'search' | 'lookup') {
  return {
    version: UCP_VERSION,
    spec: spec(`catalog/${kind}`),
    schema: `https://ucp.dev/${UCP_VERSION}/schemas/shopping/catalog_${kind}.json`,
  };
}

/** The order capability's declaration (profile): it stands alone, not an extension of checkout. */
export function orderCapability() {
  return {
    version: UCP_VERSION,
    spec: spec('order'),
    schema: `https://ucp.dev/${UCP_VERSION}/schemas/shopping/order.json`,
  };
}

/**
 * Identity linking's declaration (profile): OAuth 2.0 at this server (RFC 8414 metadata on the business domain). No
 * operation is gated behind a user's token (`scopes` is empty: checkout also works with platform credentials), so a
 * platform asks no UCP scope and gets the default `tessera:agent`; the token then acts as the buyer's agent, inside
 * the permission the buyer granted on our consent pages (docs/oauth.md).
 */
export function identityLinkingCapability() {
  return {
    version: UCP_VERSION,
    spec: spec('identity-linking'),
    schema: `https://ucp.dev/${UCP_VERSION}/schemas/common/identity_linking.json`,
    config: { scopes: {} },
  };
}

/**
 * The sandbox tokenizer handler: the platform obtains a sandbox payment-method token (`pm_sandbox_…`) from the
 * sandbox provider's hosted card form at `tokenize_url` (a card number never reaches our API) and completes a checkout
 * with `{ type: "card", credential: { type: "sandbox_token", token } }`.
 */
export function sandboxHandler(publicUrl: string) {
  return {
    id: UCP_SANDBOX_HANDLER_ID,
    version: UCP_VERSION,
    available_instruments: [{ type: 'card', constraints: { brands: [...UCP_CARD_BRANDS] } }],
    config: { environment: 'sandbox', tokenize_url: `${publicUrl}/sandbox/card-form` },
  };
}
