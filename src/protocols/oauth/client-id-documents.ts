/**
 * Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document): an MCP host whose `client_id` is an
 * https URL is not registered; the server fetches the JSON document at that URL instead. The fetch goes through the
 * webhooks' address policy (`src/webhooks/url-policy.ts`: public addresses only, every resolved address checked at
 * connect), bounded in time and size; `oidc-provider` checks that the document names the URL as its `client_id`.
 */
import type { Agent } from 'undici';
import { loadUndici } from '../../webhooks/undici.ts';
import ipaddr from 'ipaddr.js';
import type { Configuration } from 'oidc-provider';
import {
  guardedLookup,
  hostOf,
  isAllowedAddress,
  refuseWebhookUrl,
  type AddressPolicy,
} from '../../webhooks/url-policy.ts';

/** The draft revision `oidc-provider` 9.13 implements; it must be acknowledged to enable the feature. */
export const CLIENT_ID_DOCUMENT_DRAFT = 'draft-02';
/** The largest document read (the draft's suggested 5 KB); a larger one is `invalid_client`. */
export const CLIENT_ID_DOCUMENT_MAX_BYTES = 5 * 1024;
/** How long a fetched document is used (its Cache-Control max-age, held between these bounds), in seconds. */
export const CLIENT_ID_DOCUMENT_CACHE_SECONDS = { min: 60, max: 24 * 60 * 60 };

type ProviderFetch = NonNullable<Configuration['fetch']>;

const isLoopbackIp = (host: string) => ipaddr.isValid(host) && ipaddr.process(host).range() === 'loopback';

/**
 * The provider's outgoing fetch (only client ID metadata documents use it): connected through the address policy
 * instead of the library's own filter. With the development setting `OAUTH_CLIENT_ID_DOCUMENTS_ALLOW_LOOPBACK` a
 * document may be served from loopback, whose certificate is then not verified (like the plain `http://` the
 * webhooks' setting allows on loopback); every other address is public and its certificate verified.
 */
export function policyFetch(policy: AddressPolicy): ProviderFetch {
  const lookup = guardedLookup(policy);
  // undici and the two pools are made on the first document fetched, not when the provider is.
  let pools:
    Promise<{ fetch: typeof import('undici').fetch; verified: Agent; loopback: Agent | undefined }> | undefined;
  const load = () =>
    (pools ??= loadUndici().then(({ Agent, fetch }) => ({
      fetch,
      verified: new Agent({ connect: { lookup } }),
      loopback: policy.allowLoopback ? new Agent({ connect: { lookup, rejectUnauthorized: false } }) : undefined,
    })));
  return (async (url: string | URL, options: Record<string, unknown>) => {
    const { fetch, verified, loopback } = await load();
    const target = new URL(url);
    const host = hostOf(target);
    // An IP literal is connected to without a lookup: check it here.
    if (ipaddr.isValid(host) && !isAllowedAddress(host, policy)) throw new Error('The address is not public.');
    const local = loopback && (isLoopbackIp(host) || host === 'localhost' || host.endsWith('.localhost'));
    return fetch(target, { ...options, dispatcher: local ? loopback : verified } as never);
  }) as unknown as ProviderFetch;
}

/**
 * `oidc-provider`'s `clientIdMetadataDocument` feature: a `client_id` URL is fetched only when the address policy
 * accepts it (https, a public host; loopback only with the development setting), kept in the provider's cache for
 * the document's max-age within `CLIENT_ID_DOCUMENT_CACHE_SECONDS`, and the client it describes is allowed only when
 * `problem` finds nothing in its metadata (the bounds and redirect URIs a registration is held to): else
 * `invalid_client`.
 */
export function clientIdDocumentFeature(
  policy: AddressPolicy,
  problem: (metadata: Record<string, unknown>) => unknown,
) {
  return {
    enabled: true,
    ack: CLIENT_ID_DOCUMENT_DRAFT,
    allowFetch: async (_ctx: unknown, clientId: string) => refuseWebhookUrl(clientId, policy) === undefined,
    allowClient: async (_ctx: unknown, client: { metadata(): Record<string, unknown> }) =>
      problem(client.metadata()) === undefined,
    cacheDuration: CLIENT_ID_DOCUMENT_CACHE_SECONDS,
  };
}

/** The response-size bound the provider applies to a fetched document. */
export const clientIdDocumentBodyLimits = { 'client_id metadata document': CLIENT_ID_DOCUMENT_MAX_BYTES };
