/**
 * Our error bodies as ACP's flat `Error` ({ type, code, message, param?, supported_versions? }): the REST adapter
 * answers with it, and MCP puts it in the JSON-RPC error's `data` (docs/mcp-binding.md). Codes are ours
 * (ACP codes are implementation-defined) except the protocol's well-known ones.
 */
import type { ErrorBody, ErrorCode } from '../../kernel/errors.ts';
import { SUPPORTED_ACP_VERSIONS } from '../../domain/acp/versions.ts';

/** The JSON-RPC error code of every ACP error over MCP (docs/mcp-binding.md). */
export const ACP_JSONRPC_ERROR_CODE = -32000;

export interface AcpError {
  type: 'invalid_request' | 'rate_limit_exceeded' | 'processing_error' | 'service_unavailable';
  code: string;
  message: string;
  param?: string;
  supported_versions?: string[];
}

/** Our codes whose ACP name differs (everything else keeps its own snake_case code). */
const ACP_CODES: Partial<Record<ErrorCode, string>> = {
  missing_idempotency_key: 'idempotency_key_required',
};

/**
 * The delegate-payment `Error.code` is a closed enum (schema.delegate_payment.json, RFC §4): `invalid_card`,
 * `duplicate_request`, `idempotency_conflict`, `too_many_requests`, `idempotency_key_required`,
 * `idempotency_in_flight`. Our codes with a name there keep it; every other refusal is `invalid_card` (the request
 * cannot be vaulted as sent) with our own code leading its message (`not_found: …`), so nothing is lost.
 */
const DELEGATE_PAYMENT_CODES = new Set([
  'invalid_card',
  'duplicate_request',
  'idempotency_conflict',
  'too_many_requests',
  'idempotency_key_required',
  'idempotency_in_flight',
]);

function delegatePaymentError(error: AcpError): AcpError {
  if (error.code === 'rate_limited') return { ...error, type: 'rate_limit_exceeded', code: 'too_many_requests' };
  if (DELEGATE_PAYMENT_CODES.has(error.code)) return error;
  return { ...error, code: 'invalid_card', message: `${error.code}: ${error.message}` };
}

/** `payload.line_items[0].id` → `$.line_items[0].id` (REST body) or `$.payload.line_items[0].id` (MCP arguments). */
export function jsonPath(field: string, root: 'body' | 'arguments'): string {
  const rel = root === 'body' ? field.replace(/^payload(\.|$)/, '') : field;
  if (!rel || rel === '(body)') return '$';
  return `$.${rel}`;
}

function fieldOf(details: Record<string, unknown> | undefined): string | undefined {
  if (!details) return undefined;
  if (typeof details.field === 'string') return details.field;
  const problems = details.problems;
  const first: unknown = Array.isArray(problems) ? problems[0] : undefined;
  if (first && typeof first === 'object' && 'field' in first && typeof first.field === 'string') return first.field;
  return undefined;
}

/**
 * The ACP Error for one of our error bodies, with `param` as a JSONPath relative to `root`; for `delegate_payment`
 * (`tool`), with a code from that operation's closed enum.
 */
export function toAcpError(status: number, error: ErrorBody, root: 'body' | 'arguments', tool?: string): AcpError {
  const out = acpError(status, error, root);
  return tool === 'delegate_payment' ? delegatePaymentError(out) : out;
}

function acpError(status: number, error: ErrorBody, root: 'body' | 'arguments'): AcpError {
  const type = status === 503 ? 'service_unavailable' : status >= 500 ? 'processing_error' : 'invalid_request';
  const field = fieldOf(error.details);
  // Over MCP a missing meta.api_version fails schema validation; ACP names that case missing_api_version.
  if (error.code === 'invalid_input' && (field === 'meta' || field === 'meta.api_version')) {
    const supported_versions = [...SUPPORTED_ACP_VERSIONS].reverse();
    return {
      type,
      code: 'missing_api_version',
      message: 'meta.api_version is required.',
      param: jsonPath(field, root),
      supported_versions,
    };
  }
  const out: AcpError = { type, code: ACP_CODES[error.code] ?? error.code, message: error.message };
  if (field) out.param = jsonPath(field, root);
  const versions = error.details?.supported_versions;
  if (Array.isArray(versions)) out.supported_versions = versions.map(String);
  return out;
}
