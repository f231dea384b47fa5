/**
 * The wire side of a call: the request built from an operation's input, and the parts of an answer the client reads.
 */
import { OPERATIONS, type ErrorCode, type OperationId } from './operations.generated.ts';

/** A random UUID v4 from `crypto.getRandomValues` (available in every browser context and Node; randomUUID is not). */
export function uuid(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Whether an answer's body is the service's error shape (`{ code, message, … }`). */
export function isErrorBody(
  body: unknown,
): body is { code: ErrorCode; message: string; retryAfter?: number; details?: Record<string, unknown> } {
  return (
    !!body &&
    typeof body === 'object' &&
    typeof (body as { code?: unknown }).code === 'string' &&
    typeof (body as { message?: unknown }).message === 'string'
  );
}

/** When to come back, in seconds: the body's `retryAfter`, else the `Retry-After` header (seconds form). */
export function retryAfterOf(body: { retryAfter?: unknown }, headers: Headers): number | undefined {
  if (typeof body.retryAfter === 'number') return body.retryAfter;
  const header = Number(headers.get('retry-after'));
  return headers.has('retry-after') && Number.isFinite(header) ? header : undefined;
}

/** The request for an operation: path fields into the path, the rest into the query (GET, DELETE) or the JSON body. */
export function requestOf(
  baseUrl: string,
  op: OperationId,
  input: Record<string, unknown>,
): { url: URL; body: string | undefined } {
  const spec = OPERATIONS[op];
  const rest: Record<string, unknown> = { ...input };
  let path = spec.path;
  for (const name of spec.pathParams) {
    const value = rest[name];
    if (typeof value !== 'string' || value === '') throw new TypeError(`${op}: the path field ${name} is required.`);
    path = path.replace(`{${name}}`, encodeURIComponent(value));
    delete rest[name];
  }
  const url = new URL(path.replace(/^\//, ''), baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  if (spec.method !== 'GET' && spec.method !== 'DELETE') return { url, body: JSON.stringify(rest) };
  for (const [name, value] of Object.entries(rest)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(v));
  }
  return { url, body: undefined };
}
