/**
 * The UCP business profile (`/.well-known/ucp`), built from the tool registry: the shopping service's REST and MCP
 * bindings and the checkout capability are declared only when the UCP checkout tools are registered, with the sandbox
 * tokenizer handler. Capabilities this server declines (docs/ucp.md) are never declared, so never negotiated.
 */
import type { Orchestrator } from '../../orchestrator/invoke.ts';
import type { JWK } from 'jose';
import {
  catalogCapability,
  checkoutCapability,
  identityLinkingCapability,
  orderCapability,
  sandboxHandler,
  UCP_CATALOG_LOOKUP,
  UCP_CATALOG_SEARCH,
  UCP_CHECKOUT,
  UCP_IDENTITY_LINKING,
  UCP_ORDER,
  UCP_SANDBOX_HANDLER,
  UCP_SHOPPING_SERVICE,
  UCP_VERSION,
} from '../../domain/ucp/protocol.ts';
import { discountCapability, UCP_DISCOUNT } from '../../domain/ucp/discounts.ts';

/** The UCP tools the checkout capability needs, as UCP's MCP binding names them. */
export const UCP_CHECKOUT_TOOLS = [
  'create_checkout',
  'get_checkout',
  'update_checkout',
  'complete_checkout',
  'cancel_checkout',
] as const;

/** The REST binding's base path (the profile's `rest` endpoint). */
export const UCP_REST_BASE = '/ucp/v1';

/**
 * The business profile for the server at `publicUrl`; `signingKeys` are the public keys order webhooks are signed
 * with (the order capability is declared with the checkout: its webhooks follow a checkout's completion).
 */
export function businessProfile(orchestrator: Orchestrator, publicUrl: string, signingKeys: JWK[] = []) {
  const checkout = UCP_CHECKOUT_TOOLS.every((name) => orchestrator.get(name));
  const catalog = orchestrator.get('search_catalog') && orchestrator.get('lookup_catalog');
  const binding = (transport: 'rest' | 'mcp' | 'a2a', endpoint: string) => ({
    version: UCP_VERSION,
    spec: `https://ucp.dev/${UCP_VERSION}/specification/overview`,
    transport,
    endpoint,
  });
  return {
    ucp: {
      version: UCP_VERSION,
      services: checkout
        ? {
            [UCP_SHOPPING_SERVICE]: [
              binding('rest', `${publicUrl}${UCP_REST_BASE}`),
              binding('mcp', `${publicUrl}/mcp`),
              binding('a2a', `${publicUrl}/.well-known/agent-card.json`),
            ],
          }
        : {},
      capabilities: checkout
        ? {
            [UCP_CHECKOUT]: [checkoutCapability()],
            [UCP_ORDER]: [orderCapability()],
            [UCP_IDENTITY_LINKING]: [identityLinkingCapability()],
            [UCP_DISCOUNT]: [discountCapability()],
            ...(catalog
              ? {
                  [UCP_CATALOG_SEARCH]: [catalogCapability('search')],
                  [UCP_CATALOG_LOOKUP]: [catalogCapability('lookup')],
                }
              : {}),
          }
        : {},
      payment_handlers: checkout ? { [UCP_SANDBOX_HANDLER]: [sandboxHandler(publicUrl)] } : {},
    },
    signing_keys: signingKeys,
  };
}
