/** Reading one JSON-RPC message for MCP: not JSON is -32700 Parse error, JSON that is not one message is -32600. */
import { JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { MAX_JSON_DEPTH, nestedTooDeep } from '../../kernel/input-shape.ts';

/** A JSON-RPC error answer to a message that could not be read: its code, message and the id it carried (or null). */
export interface UnreadableMessage {
  code: -32700 | -32600;
  message: string;
  id: RequestId | null;
}

/** The id a JSON object names, (JSON-RPC 2.0 §5: an Invalid Request keeps it if read). */
function idOf(value: unknown): RequestId | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/**
 * Parses `text` as one JSON-RPC message (MCP since 2025-06-18 has no batches). Text that is not JSON is -32700;
 * an array (a batch), JSON nested too deep, or valid JSON that is not a JSON-RPC message is -32600 Invalid Request.
 */
export function readJsonRpcMessage(text: string): { message: JSONRPCMessage } | { error: UnreadableMessage } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: { code: -32700, message: 'Parse error: the message is not valid JSON.', id: null } };
  }
  const invalid = (message: string, id: RequestId | null = null) => ({ error: { code: -32600 as const, message, id } });
  if (Array.isArray(value)) return invalid('Invalid Request: JSON-RPC batches are not supported; send one message.');
  if (nestedTooDeep(value)) return invalid(`Invalid Request: nested deeper than ${MAX_JSON_DEPTH} levels.`);
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (!parsed.success) return invalid('Invalid Request: not a JSON-RPC 2.0 message.', idOf(value));
  return { message: parsed.data };
}
