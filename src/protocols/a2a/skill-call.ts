/**
 * What an A2A message carries and what an answer is made of: the `{ skill, input }` call read from a message's data
 * parts, the parts and messages the executor answers with, and the task state a refusal ends in.
 */
import { AgentEvent } from '@a2a-js/sdk/server';
import { Role, TaskState, type Message, type Part } from '@a2a-js/sdk';
import { ToolError, type ErrorBody } from '../../kernel/errors.ts';
import type { AnyTool } from '../../orchestrator/tool.ts';

const ENVELOPE_KEYS = ['skill', 'input', 'idempotencyKey'];

/** Whether a message carries text and no data part at all: a person or an LLM writing prose, not a skill call. */
export function isTextOnly(message: Message): boolean {
  return message.parts.length > 0 && message.parts.every((p) => p.content?.$case === 'text');
}

/**
 * The state a refusal ends in, derived from the error's HTTP status so new codes map themselves:
 * 401, or a code the tool declares in `authRequiredErrors` (e.g. purchase_initiate's missing or invalid
 * signed mandate) → AUTH_REQUIRED; 400/413/415 → INPUT_REQUIRED (fix the input, resend, even on the same task);
 * 5xx or anything carrying `retryAfter` (429, idempotency_in_flight) → FAILED (retry later);
 * every other 4xx (403, 404, 409, 422, …) → REJECTED.
 */
export function stateForError(status: number, error: ErrorBody, tool?: AnyTool): TaskState {
  if (status === 401 || tool?.authRequiredErrors?.includes(error.code)) return TaskState.TASK_STATE_AUTH_REQUIRED;
  if (status === 400 || status === 413 || status === 415) return TaskState.TASK_STATE_INPUT_REQUIRED;
  if (status >= 500 || error.retryAfter !== undefined) return TaskState.TASK_STATE_FAILED;
  return TaskState.TASK_STATE_REJECTED;
}

export const dataPart = (value: unknown): Part => ({
  content: { $case: 'data', value },
  mediaType: 'application/json',
  filename: '',
  metadata: undefined,
});
export const textPart = (value: string): Part => ({
  content: { $case: 'text', value },
  mediaType: 'text/plain',
  filename: '',
  metadata: undefined,
});
/**
 * An agent message without a task (a read's answer, the explanation of free text) as the bus event that publishes it.
 */
export const agentMessage = (contextId: string, parts: Part[], metadata?: Record<string, unknown>) =>
  AgentEvent.message({
    messageId: crypto.randomUUID(),
    taskId: '',
    contextId,
    role: Role.ROLE_AGENT,
    parts,
    metadata,
    extensions: [],
    referenceTaskIds: [],
  });
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Artifact metadata naming the reservation of a purchase the provider has not answered yet (a 202: WORKING task). */
export const PENDING_RESERVATION = 'pendingReservation';

/** The reservation of a purchase output whose payment is still pending at the provider, or undefined. */
export function pendingReservation(output: unknown): string | undefined {
  if (!isObject(output) || !isObject(output.payment) || output.payment.state !== 'pending') return undefined;
  return isObject(output.reservation) && typeof output.reservation.id === 'string' ? output.reservation.id : undefined;
}

export interface SkillCall {
  skill: string;
  input: unknown;
  idempotencyKey: string | undefined;
}

/** Reads the `{ skill, input, idempotencyKey? }` envelope from the message's data parts, or throws a ToolError. */
export function readCall(message: Message): SkillCall {
  const data = message.parts.flatMap((p) => (p.content?.$case === 'data' ? [p.content.value as unknown] : []));
  const envelope = data.find((d) => isObject(d) && 'skill' in d) ?? data[0];
  const shape = 'send a data part {"skill": "<skill id>", "input": {...}}; the agent card lists the skills';
  if (envelope === undefined)
    throw new ToolError('invalid_input', `The message has no data part: ${shape}.`, { field: 'parts' });
  if (!isObject(envelope))
    throw new ToolError('invalid_input', `The data part must be a JSON object: ${shape}.`, { field: 'parts' });
  const fields = Object.keys(envelope).filter((k) => !ENVELOPE_KEYS.includes(k));
  if (fields.length)
    throw new ToolError('unknown_field', `Unknown field: ${fields.join(', ')}.`, { fields, field: fields[0] });
  const { skill, input, idempotencyKey } = envelope;
  if (typeof skill !== 'string' || !skill)
    throw new ToolError('invalid_input', `The data part names no skill: ${shape}.`, { field: 'skill' });
  if (idempotencyKey !== undefined && typeof idempotencyKey !== 'string') {
    throw new ToolError('invalid_input', 'idempotencyKey must be a string.', { field: 'idempotencyKey' });
  }
  return { skill, input: input ?? {}, idempotencyKey };
}
