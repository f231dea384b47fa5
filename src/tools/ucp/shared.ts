/**
 * What the UCP tools share: the MCP binding's `meta` (the REST headers as fields: `ucp-agent`, `idempotency-key`),
 * UCP idempotency (key from meta or the transport, scoped to caller + operation, the checkout alone compared), who
 * may call, and the codes every checkout tool may answer. The tools are named as UCP's MCP binding names them.
 */
import { z } from 'zod';
import type { ErrorCode } from '../../kernel/errors.ts';
import type { Auth, IdempotencyRequest } from '../../orchestrator/tool.ts';
import { openObject } from '../../domain/acp/request-schemas.ts';

/** The binding's `meta`: `ucp-agent` carries the platform's profile URI (required by the specification). */
export const UcpMeta = z
  .looseObject({
    'ucp-agent': z
      .strictObject({ profile: z.url().max(2000).describe('The platform profile URI.') })
      .describe('The UCP-Agent header: the platform’s profile.'),
    'idempotency-key': z
      .string()
      .min(1)
      .max(255)
      .optional()
      .describe('Idempotency-Key: a retry with the same key and checkout replays the outcome.'),
  })
  .meta(openObject('UCP MCP binding: meta is extensible; unrecognised fields are ignored'))
  .describe('Protocol metadata (the UCP HTTP headers); unrecognised fields are ignored as the binding allows.');
export type UcpMetaInput = z.infer<typeof UcpMeta>;

export const CheckoutId = z.string().min(1).max(100).describe('The checkout session id (cs_…).');

/** UCP idempotency for the operation named `op` (its REST method and path). */
export function ucpIdempotency(op: (input: { id?: string }) => string) {
  return (
    input: { meta: UcpMetaInput; id?: string; checkout?: unknown },
    transportKey: string | undefined,
  ): IdempotencyRequest => ({
    key: input.meta['idempotency-key'] ?? transportKey,
    endpoint: `ucp ${op(input)}`,
    body: input.checkout ?? null,
  });
}

/** A platform's agent, or a merchant integration acting for its own shops (as for ACP). */
export const UCP_AUTH: Auth = { principals: ['agent', 'api_key'], scopes: ['merchant:write'], listed: ['api_key'] };

/** Codes every checkout tool may answer. */
export const UCP_ERRORS: readonly ErrorCode[] = [
  'not_found',
  'insufficient_scope',
  'invalid_profile_url',
  'profile_unreachable',
  'profile_malformed',
  'version_unsupported',
  'capabilities_incompatible',
];

export const UCP_ANNOTATIONS = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
} as const;

/** What the two catalog tools (search and lookup) declare alike: public, read-only, the negotiation's codes. */
export const UCP_CATALOG_TOOL = {
  area: 'ucp',
  errors: UCP_ERRORS.filter((c) => c !== 'not_found' && c !== 'insufficient_scope'),
  auth: { public: true, listed: ['anonymous', 'api_key'] } satisfies Auth,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  transactional: false,
} as const;
