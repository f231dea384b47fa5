/** Reads a request body as raw bytes (kept for signature checks) and as JSON, with a size limit. */
import type { IncomingMessage } from 'node:http';
import { ToolError } from '../kernel/errors.ts';
import { assertInputShape } from '../kernel/input-shape.ts';

export const MAX_BODY_BYTES = 1024 * 1024;

export async function readRaw(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
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
 * Parses a JSON object body; an empty body is `{}`; anything but a JSON object is refused, and so is one nested too deeply,
 * holding a lone surrogate or a `__proto__` key (`src/kernel/input-shape.ts`).
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
