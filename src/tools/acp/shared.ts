/**
 * What the ACP tools share: the MCP binding's `meta` argument (the protocol headers), the API-Version check,
 * ACP idempotency (key from meta or the transport, scoped to caller + endpoint, body-only comparison), who
 * may call, and the session output. The tools follow docs/mcp-binding.md: arguments are `{ meta, id?, payload? }`.
 */
import { z } from 'zod';
import { openObject } from '../../domain/acp/request-schemas.ts';
import { checkAcpVersion, SUPPORTED_ACP_VERSIONS } from '../../domain/acp/versions.ts';
import type { ErrorCode } from '../../kernel/errors.ts';
import type { Auth, IdempotencyRequest } from '../../orchestrator/tool.ts';

/**
 * The binding's `meta` (HTTP headers as fields). Open by protocol: the binding declares it
 * `additionalProperties: true` and says servers SHOULD ignore unrecognised meta fields.
 */
export const AcpMeta = z
  .looseObject({
    api_version: z
      .string()
      .max(40)
      .describe(`The ACP API version (API-Version header): ${SUPPORTED_ACP_VERSIONS.join(', ')}.`),
    idempotency_key: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .describe('Idempotency-Key: a retry with the same key and payload replays the outcome.'),
    request_id: z.string().max(255).optional().describe('Request-Id, for correlation.'),
    user_agent: z.string().max(500).optional().describe('User-Agent of the calling agent.'),
    accept_language: z
      .string()
      .max(200)
      .optional()
      .describe('Accept-Language: the buyer’s preferred languages for messages.'),
    signature: z.string().max(2000).optional().describe('Request signature (not verified by this server).'),
    timestamp: z.string().max(64).optional().describe('Request timestamp, RFC 3339.'),
  })
  .meta(openObject('ACP MCP binding: meta is extensible; unrecognised fields are ignored'))
  .describe('Protocol metadata (the ACP HTTP headers): api_version is required.');
export type AcpMetaInput = z.infer<typeof AcpMeta>;

export const SessionId = z.string().min(1).max(100).describe('The checkout session id (cs_…).');

/** Checks meta.api_version; returns the version. */
export function versionOf(meta: AcpMetaInput): string {
  return checkAcpVersion(meta.api_version);
}

/**
 * ACP idempotency for an operation at `endpoint`: the key from meta (else the transport's), scoped to the caller
 * and the endpoint, the payload alone compared. The API version is checked first, so a refused version is never
 * stored against the key.
 */
export function acpIdempotency(endpoint: (input: { id?: string }) => string) {
  return (
    input: { meta: AcpMetaInput; id?: string; payload?: unknown },
    transportKey: string | undefined,
  ): IdempotencyRequest => {
    versionOf(input.meta);
    return { key: input.meta.idempotency_key ?? transportKey, endpoint: endpoint(input), body: input.payload ?? null };
  };
}

/** Agents and merchant integrations (an API key acting as the ACP seller endpoint for its own shops). */
export const ACP_AUTH: Auth = {
  principals: ['agent', 'api_key'],
  scopes: ['merchant:write'],
  // An ACP client (a merchant-issued key) lists them; a buying agent calls them if it speaks ACP, but buys with
  // quote → reserve → confirm, so its tool list stays short.
  listed: ['api_key'],
};

/** Codes every checkout tool may answer. */
export const ACP_ERRORS: readonly ErrorCode[] = [
  'missing_api_version',
  'unsupported_api_version',
  'not_found',
  'insufficient_scope',
];

export const ACP_ANNOTATIONS = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
} as const;
