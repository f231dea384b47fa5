/** UCP's error shape, `{ code, content }`, and its JSON-RPC codes on the MCP binding (overview, "Error Handling"). */
import type { ErrorBody, ErrorCode } from '../../kernel/errors.ts';

/** Negotiation failures: -32001 on MCP ("UCP discovery failed"). */
const NEGOTIATION: ReadonlySet<ErrorCode> = new Set([
  'invalid_profile_url',
  'profile_unreachable',
  'profile_malformed',
  'version_unsupported',
  'capabilities_incompatible',
]);

/** The body of a UCP protocol error. */
export function toUcpError(error: ErrorBody) {
  return {
    code: error.code,
    content: error.message,
    ...(error.retryAfter !== undefined ? { retry_after: error.retryAfter } : {}),
    ...(error.details ? { details: error.details } : {}),
  };
}

/**
 * A failed negotiation that UCP answers as a 200 envelope, not an error (overview, "Error Handling":
 * `capabilities_incompatible`): `ucp.status: "error"`, no capability in common, the reason as an unrecoverable message.
 */
export function ucpErrorEnvelope(error: ErrorBody, version: string) {
  if (error.code !== 'capabilities_incompatible') return undefined;
  return {
    ucp: { version, status: 'error', capabilities: {} },
    messages: [{ type: 'error', code: error.code, content: error.message, severity: 'unrecoverable' }],
  };
}

/** The JSON-RPC error code a failed UCP tool call answers on MCP: -32001 for negotiation, else -32000. */
export const ucpJsonRpcCode = (error: ErrorBody): number => (NEGOTIATION.has(error.code) ? -32001 : -32000);
