/** A2A clients for tests: the real @a2a-js/sdk client against the harness server, and a uniform skill-call result. */
import { Message, taskStateToJSON, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import type { Harness } from './harness.ts';
import type { Outcome } from './outcome.ts';

/** An answer held in a task: its state. */
type InTask = { state: string; task: Task; reply?: undefined };
/** A read-only skill's success: a message (`reply`), no task; `state` is "MESSAGE". */
type InMessage = { state: 'MESSAGE'; task?: undefined; reply: Message };

/** A skill's outcome: a success in a task or a message, a refusal in a task. */
export type SkillOutcome = Outcome<InTask | InMessage, InTask>;

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

/**
 * Sends one message with the given parts (wire JSON form, e.g. `{ data: {...} }` or `{ text: '...' }`): the task or
 * message answered.
 */
export async function sendAny(client: Client, parts: unknown[], taskId?: string): Promise<Task | Message> {
  const message = Message.fromJSON({
    messageId: crypto.randomUUID(),
    role: 'ROLE_USER',
    parts,
    ...(taskId ? { taskId } : {}),
  });
  return client.sendMessage({ tenant: '', configuration: undefined, metadata: undefined, message });
}

/** As `sendAny`, for a call answered with a task. */
export async function sendParts(client: Client, parts: unknown[], taskId?: string): Promise<Task> {
  const res = await sendAny(client, parts, taskId);
  if (!('status' in res)) throw new Error(`Expected a task, got a message: ${JSON.stringify(res)}`);
  return res;
}

/**
 * Reads an answer: a read-only skill's message as `{ ok, output }` (its data part); a finished task as `{ ok, output }`
 * (the data artifact) or `{ ok: false, code, message }` (the status data part).
 */
export function outcomeOf(answer: Task | Message): SkillOutcome {
  if (!('status' in answer)) {
    const content = answer.parts[0]?.content;
    if (answer.parts.length !== 1 || content?.$case !== 'data' || typeof answer.metadata?.skill !== 'string') {
      throw new Error(`Unexpected A2A message: ${JSON.stringify(answer)}`);
    }
    return { ok: true, output: content.value, state: 'MESSAGE', replayed: false, reply: answer };
  }
  const task = answer;
  const state = taskStateToJSON(task.status!.state);
  // WORKING with an artifact: a purchase still pending at the provider (it completes when the provider answers).
  if (state === 'TASK_STATE_COMPLETED' || (state === 'TASK_STATE_WORKING' && task.artifacts.length > 0)) {
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

/** The task an outcome is held in; fails for a read-only skill's success, which has none. */
export function taskOf(outcome: SkillOutcome): Task {
  if (!outcome.task) throw new Error(`Expected a task, got a message: ${JSON.stringify(outcome.reply)}`);
  return outcome.task;
}

/** Runs one skill with `{ skill, input, idempotencyKey? }` in a data part. */
export async function runSkill(
  client: Client,
  name: string,
  input: Record<string, unknown> = {},
  idempotencyKey?: string,
): Promise<SkillOutcome> {
  const data = { skill: name, input, ...(idempotencyKey ? { idempotencyKey } : {}) };
  return outcomeOf(await sendAny(client, [{ data, mediaType: 'application/json' }]));
}
