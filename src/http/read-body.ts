/** Reads a request body as raw bytes (kept for signature checks) and as JSON, with a size limit. */
import type { IncomingMessage } from 'node:http';
import { finished } from 'node:stream';
import { ToolError } from '../kernel/errors.ts';
import { assertInputShape } from '../kernel/input-shape.ts';

export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The body's bytes, at most `limit` (else `payload_too_large`). A body whose Content-Length is within the limit (the
 * parser delivers exactly that many bytes) is read with listeners: the stream's async iterator cost about 15 µs a
 * request, more than reading a small body itself. Any other body (chunked, or declared too large) is read with
 * `for await`, which stops at the limit.
 */
export async function readRaw(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = req.headers['content-length'] === undefined ? Number.NaN : Number(req.headers['content-length']);
  if (declared <= limit && !req.readableEnded) return readDeclared(req);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new ToolError('payload_too_large', `The request body exceeds ${limit} bytes.`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * Reads a body of a declared length (within the limit) to its end; fails as `for await` would if the request closes
 * first, also when it closed before this was called (a client gone while the request waited for its route): `finished`
 * looks at the stream's state as well as its events, where listeners alone would wait for an event already past.
 */
function readDeclared(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const onData = (chunk: Buffer) => chunks.push(chunk);
    req.on('data', onData);
    finished(req, { writable: false }, (err) => {
      req.off('data', onData);
      if (err) reject(err);
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    });
  });
}

/**
 * Parses a JSON object body; an empty body is `{}`; anything but a JSON object is refused, and so is one nested too
 * deeply, holding a lone surrogate or a `__proto__` key (`src/kernel/input-shape.ts`).
 */
export function parseJsonObject(raw: Buffer, contentType: string | undefined): Record<string, unknown> {
  if (raw.length === 0) return {};
  if (contentType && !/^application\/([\w.+-]*\+)?json\b/i.test(contentType)) {
    throw new ToolError('unsupported_media_type');
  }
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ToolError('invalid_json');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ToolError('invalid_input', 'The request body must be a JSON object.');
  }
  assertInputShape(value);
  return value as Record<string, unknown>;
}
