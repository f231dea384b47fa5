/**
 * The A2A JSON-RPC envelope checks made before the SDK reads a request: JSON, a request object, a method of the
 * version spoken, the nesting depth and the message parts, each refused with the JSON-RPC code that names it.
 */
import { MAX_JSON_DEPTH, nestedTooDeep } from '../../kernel/input-shape.ts';

/** A JSON-RPC error answer (HTTP 200, like every A2A JSON-RPC error). */
export interface RpcErrorAnswer {
  jsonrpc: '2.0';
  id: string | number | null;
  error: { code: number; message: string };
}

/** A2A v0.3 (a request without `A2A-Version`, or naming 0.3): its method names and shapes, through the SDK's compat. */
export const isLegacy = (version: string | undefined) => !version || /^0\.3(\.\d+)?$/.test(version.trim());

/** The methods of A2A v1.0's JSON-RPC binding (what the SDK's `JsonRpcTransportHandler` dispatches). */
const METHODS_V1 = new Set([
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
]);

/** The methods of A2A v0.3 (what the SDK's `LegacyJsonRpcTransportHandler` dispatches). */
const METHODS_V03 = new Set([
  'message/send',
  'message/stream',
  'tasks/get',
  'tasks/cancel',
  'tasks/resubscribe',
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
  'agent/getAuthenticatedExtendedCard',
]);

/** The JSON-RPC request id, echoed in errors raised before the SDK parses the body (null unless a valid id). */
export function idOf(raw: string): string | number | null {
  try {
    const id = (JSON.parse(raw) as { id?: unknown } | null)?.id;
    return typeof id === 'string' || Number.isInteger(id) ? (id as string | number) : null;
  } catch {
    return null;
  }
}

/** The parsed body, or undefined when it is not JSON. */
export function parsed(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Why a parsed body is not a JSON-RPC 2.0 request object, or undefined when it is one: an object (not an array: A2A
 * has no batches) with `jsonrpc: "2.0"`, a non-empty string `method` and, if present, a string, integer or null `id`.
 * The SDK would read `null` as an object (a -32603 naming its own TypeError) and answer the rest -32602.
 */
function notARequest(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return 'the body must be a JSON-RPC request object';
  }
  const { jsonrpc, method, id } = body as { jsonrpc?: unknown; method?: unknown; id?: unknown };
  if (jsonrpc !== '2.0') return '"jsonrpc" must be "2.0"';
  if (typeof method !== 'string' || !method) return '"method" must be a non-empty string';
  if ('id' in body && id !== null && typeof id !== 'string' && !Number.isInteger(id)) {
    return '"id" must be a string, an integer or null';
  }
  return undefined;
}

const refusal = (raw: string, code: number, message: string, id = idOf(raw)): RpcErrorAnswer => ({
  jsonrpc: '2.0',
  id,
  error: { code, message },
});

/**
 * The JSON-RPC error for a body the SDK must not read, or undefined when it is a request object: not JSON is -32700
 * Parse error (the SDK would answer -32602); nested too deep is -32600 (the SDK converts data parts recursively and
 * would overflow its stack, naming it); JSON that is not a request object is -32600 Invalid Request.
 */
export function envelopeRefusal(raw: string, body: unknown): RpcErrorAnswer | undefined {
  if (body === undefined) return refusal(raw, -32700, 'Parse error: the request body is not valid JSON.', null);
  if (nestedTooDeep(body)) {
    return refusal(raw, -32600, `Invalid Request: the message is nested more than ${MAX_JSON_DEPTH} levels deep.`);
  }
  const invalid = notARequest(body);
  return invalid ? refusal(raw, -32600, `Invalid Request: ${invalid}.`) : undefined;
}

/**
 * -32601 Method not found for a request (checked by `envelopeRefusal`) whose method the version spoken (`legacy`:
 * v0.3) does not have, else undefined. The SDK checks `params` first, so an unknown method without them would be
 * -32602 Invalid params.
 */
export function methodNotFound(raw: string, body: unknown, legacy: boolean): RpcErrorAnswer | undefined {
  const { method } = body as { method: string };
  if ((legacy ? METHODS_V03 : METHODS_V1).has(method)) return undefined;
  const version = legacy ? 'A2A v0.3 (send A2A-Version: 1.0 for v1.0)' : 'A2A v1.0';
  return refusal(
    raw,
    -32601,
    `Method not found: ${JSON.stringify(method).slice(0, 100)} is not a method of ${version}.`,
  );
}

/**
 * Whether the body is a message that starts a new task: the SDK's only work before the skill runs is then in memory
 * (parsing, the request context, the task's first event), so it may run while the rate-limit charge is in flight.
 * Anything else (a follow-up naming a task, which the SDK reads and writes, or any other method) waits for the charge.
 */
export function startsNewTask(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const { method, params } = body as { method?: unknown; params?: { message?: { taskId?: unknown } } };
  return (method === 'SendMessage' || method === 'message/send') && !params?.message?.taskId;
}

/** The media types a message's parts may have: JSON data parts (the skill call) and text (explained, card says). */
const ACCEPTED_PART_TYPES = new Set(['application/json', 'text/plain']);

/**
 * Why a SendMessage's parts cannot be read, or undefined: a file part (`raw` or `url`), or a part whose `mediaType`
 * is neither JSON nor text. A2A answers that with -32005 ContentTypeNotSupported (the A2A TCK's MUST), not a task.
 */
export function unsupportedPart(body: unknown): string | undefined {
  const { method, params } = body as { method?: unknown; params?: { message?: { parts?: unknown } } };
  const sends = ['SendMessage', 'SendStreamingMessage', 'message/send', 'message/stream'];
  if (typeof method !== 'string' || !sends.includes(method)) return undefined;
  const parts = params?.message?.parts;
  if (!Array.isArray(parts)) return undefined;
  for (const part of parts as unknown[]) {
    if (typeof part !== 'object' || part === null) continue;
    const { mediaType, raw, url, kind } = part as { mediaType?: unknown; raw?: unknown; url?: unknown; kind?: unknown };
    const file = raw !== undefined || url !== undefined || kind === 'file';
    if (file) return 'file parts are not accepted; send a data part';
    const type = typeof mediaType === 'string' ? mediaType.split(';')[0]!.trim().toLowerCase() : '';
    if (type && !ACCEPTED_PART_TYPES.has(type)) return `parts of media type ${type} are not accepted`;
  }
  return undefined;
}
