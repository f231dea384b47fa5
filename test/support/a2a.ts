/** A2A clients for tests: the real @a2a-js/sdk client against the harness server, and a uniform skill-call result. */
import { Message, taskStateToJSON, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import type { Harness } from './harness.ts';

export type SkillOutcome =
  | { ok: true; output: any; state: string; replayed: boolean; task: Task }
  | { ok: false; code: string; message: string; error: any; state: string; task: Task };

/**
 * A client resolved from the served agent card (`/.well-known/agent-card.json`), sending
 * `Authorization: Bearer <token>` on every JSON-RPC call when a token is given.
 */
export async function a2aClient(h: Harness, token?: string): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    if (token) headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
  });
  return new ClientFactory(options).createFromUrl(h.url);
}

/** Sends one message with the given parts (wire JSON form, e.g. `{ data: {...} }` or `{ text: '...' }`) and returns the task. */
export async function sendParts(client: Client, parts: unknown[], taskId?: string): Promise<Task> {
  const message = Message.fromJSON({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts, ...(taskId ? { taskId } : {}) });
  const res = await client.sendMessage({ tenant: '', configuration: undefined, metadata: undefined, message });
  if (!('status' in res)) throw new Error(`Expected a task, got a message: ${JSON.stringify(res)}`);
  return res;
}

/** Reads a finished task as `{ ok, output }` (the data artifact) or `{ ok: false, code, message }` (the status data part). */
export function outcomeOf(task: Task): SkillOutcome {
  const state = taskStateToJSON(task.status!.state);
  if (state === 'TASK_STATE_COMPLETED') {
    const artifact = task.artifacts[0];
    const content = artifact?.parts[0]?.content;
    if (content?.$case !== 'data') throw new Error(`Completed task without a data artifact: ${JSON.stringify(task)}`);
    return { ok: true, output: content.value, state, replayed: artifact?.metadata?.replayed === true, task };
  }
  const parts = task.status?.message?.parts ?? [];
  const text = parts.find((p) => p.content?.$case === 'text')?.content;
  const data = parts.find((p) => p.content?.$case === 'data')?.content;
  const error = data?.$case === 'data' ? data.value : undefined;
  if (!error || text?.$case !== 'text' || text.value !== `${error.code}: ${error.message}`) {
    throw new Error(`Unexpected A2A refusal: ${JSON.stringify(task.status)}`);
  }
  return { ok: false, code: error.code, message: error.message, error, state, task };
}

/** Runs one skill with `{ skill, input, idempotencyKey? }` in a data part. */
export async function runSkill(
  client: Client,
  name: string,
  input: Record<string, unknown> = {},
  idempotencyKey?: string,
): Promise<SkillOutcome> {
  const data = { skill: name, input, ...(idempotencyKey ? { idempotencyKey } : {}) };
  return outcomeOf(await sendParts(client, [{ data, mediaType: 'application/json' }]));
}
