/**
 * The A2A task store, in PostgreSQL (`src/storage/a2a-tasks.ts`): every server process reads the same tasks; each task
 * belongs to the owner the router resolved from the caller's principal, and any other caller is told task-not-found. A
 * stored task is bounded in bytes: a message larger than `MAX_KEPT_MESSAGE_BYTES` keeps its ids but not its parts, an
 * artifact larger than `MAX_KEPT_ARTIFACT_BYTES` likewise. Tasks expire in the sweeper's retention pass. Secret fields
 * (`src/kernel/secret-fields.ts`) of the skill's input in the caller's message, and of its output in the artifact, are
 * stored as "[redacted]": a task read later (tasks/get, tasks/list, a follow-up message) never shows them, while the
 * call that wrote them reads its own parts back in clear, so its live answer is unchanged.
 *
 * A task made by a `SendMessage` (`fresh`) is kept in the request's memory while it runs: the SDK loads and saves it
 * once per event (one for a blocking call, three when answered early: task, artifact, status), and nobody else can name
 * it before the answer carries its id. `settle`,
 * awaited before the answer is sent, writes each such task once, in its state at that moment; a later save (a call that
 * answered early, `returnImmediately`) is written through, after it. An anonymous caller's tasks are never written.
 */
import {
  Task,
  taskStateFromJSON,
  taskStateToJSON,
  type ListTasksRequest,
  type ListTasksResponse,
  type Message,
  type Part,
} from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import type { ZodType } from 'zod';
import type { Clock } from '../../kernel/clock.ts';
import { redact, REDACTED, secretPaths } from '../../kernel/secret-fields.ts';
import type { AnyTool } from '../../orchestrator/tool.ts';
import type { A2aTasks } from '../../storage/a2a-tasks.ts';

/** A message (the caller's input, or a status message) kept whole up to this many bytes of JSON. */
export const MAX_KEPT_MESSAGE_BYTES = 8 * 1024;
/** An artifact (a tool's output) kept whole up to this many bytes of JSON. */
export const MAX_KEPT_ARTIFACT_BYTES = 256 * 1024;

/** The stored owner: the tenant and the user name the router resolved from the caller's principal. */
export const ownerOf = (c: ServerCallContext) => JSON.stringify([c.tenant ?? '', c.user?.userName ?? '']);
const bytesOf = (v: unknown) => Buffer.byteLength(JSON.stringify(v) ?? '');
const omitted = (what: string, bytes: number): Part => ({
  content: { $case: 'text', value: `[${what} of ${bytes} bytes not kept]` },
  mediaType: 'text/plain',
  filename: '',
  metadata: undefined,
});

function boundMessage(m: Message): Message {
  const bytes = bytesOf(m.parts);
  return bytes > MAX_KEPT_MESSAGE_BYTES ? { ...m, parts: [omitted('message content', bytes)] } : m;
}

/** The task as stored: over-large messages and artifacts replaced by a note of their size. */
export function boundTask(task: Task): Task {
  return {
    ...task,
    history: task.history.map(boundMessage),
    status: task.status && { ...task.status, message: task.status.message && boundMessage(task.status.message) },
    artifacts: task.artifacts.map((a) => {
      const bytes = bytesOf(a.parts);
      return bytes > MAX_KEPT_ARTIFACT_BYTES ? { ...a, parts: [omitted('artifact content', bytes)] } : a;
    }),
  };
}

/**
 * A deep copy of a task's data: plain objects, arrays and byte arrays copied by hand (several times cheaper than
 * `structuredClone` for the small tasks a call makes), anything else by `structuredClone`.
 */
export function copyOf<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(copyOf) as T;
  if (v instanceof Uint8Array) return v.slice() as T;
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return structuredClone(v);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    const value = copyOf((v as Record<string, unknown>)[k]);
    // An own "__proto__" key (JSON.parse makes one) stays a key: assigning it would set the copy's prototype.
    if (k === '__proto__')
      Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
    else out[k] = value;
  }
  return out as T;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
type ToolOf = (name: string) => AnyTool | undefined;

/**
 * A data part's value with its secrets redacted: a skill call's input (all of it for an unknown skill), or an output.
 */
function redactPart(part: Part, redactValue: (v: unknown) => unknown): Part {
  if (part.content?.$case !== 'data') return part;
  return { ...part, content: { $case: 'data', value: redactValue(part.content.value) } };
}

function redactMessage(m: Message, toolOf: ToolOf): Message {
  const redactCall = (v: unknown) => {
    if (!isObject(v) || typeof v.skill !== 'string' || v.input === undefined) return v;
    const tool = toolOf(v.skill);
    return { ...v, input: tool ? redact(v.input, secretPaths(tool.input as ZodType, 'input')) : REDACTED };
  };
  return { ...m, parts: m.parts.map((p) => redactPart(p, redactCall)) };
}

/** The task as kept at rest: the secret fields of skill inputs (history) and outputs (artifacts) redacted. */
export function redactTask(task: Task, toolOf: ToolOf): Task {
  return {
    ...task,
    history: task.history.map((m) => redactMessage(m, toolOf)),
    status: task.status && {
      ...task.status,
      message: task.status.message && redactMessage(task.status.message, toolOf),
    },
    artifacts: task.artifacts.map((a) => {
      const tool = toolOf(a.name);
      const paths = tool ? secretPaths(tool.output as ZodType, 'output') : [];
      return paths.length ? { ...a, parts: a.parts.map((p) => redactPart(p, (v) => redact(v, paths))) } : a;
    }),
  };
}

/** Puts back the clear parts this call itself wrote (by message and artifact id) into a task read from the store. */
function restore(task: Task, clear: Map<string, Part[]>): Task {
  const message = (m: Message): Message => ({ ...m, parts: clear.get(`m:${m.messageId}`) ?? m.parts });
  return {
    ...task,
    history: task.history.map(message),
    status: task.status && { ...task.status, message: task.status.message && message(task.status.message) },
    artifacts: task.artifacts.map((a) => ({ ...a, parts: clear.get(`a:${a.artifactId}`) ?? a.parts })),
  };
}

const cursorOf = (at: Date, id: string) => Buffer.from(JSON.stringify([at.toISOString(), id])).toString('base64url');
function parseCursor(token: string): [Date, string] | undefined {
  try {
    const [at, id] = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown[];
    const when = typeof at === 'string' ? new Date(at) : undefined;
    return when && !Number.isNaN(when.getTime()) && typeof id === 'string' ? [when, id] : undefined;
  } catch {
    return undefined;
  }
}

/** What one request keeps in memory: the tasks it made (bounded, in clear) until `settle`, and its writes in order. */
interface Pending {
  /** Whether the request's tasks are written at all (false: an anonymous caller's one-request owner). */
  persist: boolean;
  settled: boolean;
  /** The request's fresh tasks by id: undefined until first saved. */
  fresh: Map<string, Task | undefined>;
  /** The request's writes, chained, so a write-through save never lands before the settling write (never rejects). */
  writes: Promise<void>;
}

export class PostgresTaskStore implements TaskStore {
  private readonly tasks: A2aTasks;
  private readonly clock: Clock;
  private readonly toolOf: ToolOf;
  /** Per call (the SDK hands one context to every read and write of a request): the clear parts it wrote. */
  private readonly clear = new WeakMap<ServerCallContext, Map<string, Part[]>>();
  /** Per call: the tasks it made and has not yet written (weakly held: a finished request leaves nothing behind). */
  private readonly pending = new WeakMap<ServerCallContext, Pending>();

  /**
   * Brings a stored task up to date when it is read (a WORKING purchase whose provider has answered since: the
   * executor's `refresh`); the new state is saved before it is returned.
   */
  refresh?: (task: Task, context: ServerCallContext) => Promise<Task | undefined>;

  constructor(tasks: A2aTasks, clock: Clock, toolOf: ToolOf) {
    this.tasks = tasks;
    this.clock = clock;
    this.toolOf = toolOf;
  }

  /**
   * Starts a request whose tasks are written by `settle`: all of them, or (`persist` false: an owner that lives for
   * this one request) none. A context never begun writes every save through.
   */
  begin(context: ServerCallContext, persist: boolean): void {
    this.pending.set(context, { persist, settled: false, fresh: new Map(), writes: Promise.resolve() });
  }

  /** `taskId` is made by this request (the executor's new task): no one else can name it until the answer is sent. */
  fresh(context: ServerCallContext, taskId: string): void {
    const p = this.pending.get(context);
    if (p && !p.settled && !p.fresh.has(taskId)) p.fresh.set(taskId, undefined);
  }

  /**
   * Writes the request's fresh tasks, once each, in their current state; later saves write through. Await before
   * answering.
   */
  async settle(context: ServerCallContext): Promise<void> {
    const p = this.pending.get(context);
    if (!p || p.settled) return;
    p.settled = true;
    if (!p.persist) return;
    await Promise.all([...p.fresh.values()].flatMap((task) => (task ? [this.write(p, task, context)] : [])));
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const bounded = boundTask(task);
    const clear = this.clear.get(context) ?? new Map<string, Part[]>();
    this.clear.set(context, clear);
    for (const m of [...bounded.history, ...(bounded.status?.message ? [bounded.status.message] : [])])
      clear.set(`m:${m.messageId}`, m.parts);
    for (const a of bounded.artifacts) clear.set(`a:${a.artifactId}`, a.parts);
    const p = this.pending.get(context);
    if (!p) return this.tasks.save(ownerOf(context), this.rowOf(bounded), this.clock.now());
    if (!p.persist) {
      p.fresh.set(task.id, copyOf(bounded)); // read back within the request, never written
      return;
    }
    if (!p.settled && p.fresh.has(task.id)) {
      p.fresh.set(task.id, copyOf(bounded)); // the SDK changes what it saved (see load): keep a copy
      return;
    }
    await this.write(p, bounded, context);
  }

  /**
   * Writes `bounded` after the request's earlier writes (a failed one does not stop the next); rejects if this one
   * fails.
   */
  private write(p: Pending, bounded: Task, context: ServerCallContext): Promise<void> {
    const row = this.rowOf(bounded);
    const owner = ownerOf(context);
    const done = p.writes.then(() => this.tasks.save(owner, row, this.clock.now()));
    p.writes = done.catch(() => undefined);
    return done;
  }

  private rowOf(bounded: Task) {
    const at = bounded.status?.timestamp ? new Date(bounded.status.timestamp) : new Date(0);
    return {
      id: bounded.id,
      contextId: bounded.contextId,
      state: taskStateToJSON(bounded.status?.state ?? 0),
      statusAt: Number.isNaN(at.getTime()) ? new Date(0) : at,
      task: Task.toJSON(redactTask(bounded, this.toolOf)),
    };
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    if (taskId.includes('\u0000')) return undefined; // PostgreSQL text holds no NUL; no task has one
    const p = this.pending.get(context);
    if (p && (!p.persist || (!p.settled && p.fresh.has(taskId)))) {
      // The kept copy itself: the SDK saves every task it loaded and changed, and a save keeps a new copy, so what it
      // changes after its last save (the answer's history length) never reaches the copy `settle` writes.
      return p.fresh.get(taskId);
    }
    if (p) await p.writes;
    const json = await this.tasks.load(ownerOf(context), taskId);
    if (json === undefined) return undefined;
    const task = Task.fromJSON(json);
    const clear = this.clear.get(context);
    const current = clear ? restore(task, clear) : task;
    const refreshed = await this.refresh?.(current, context);
    if (!refreshed) return current;
    await this.save(refreshed, context);
    return refreshed;
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const pageSize = params.pageSize ?? 50;
    const before = params.pageToken ? parseCursor(params.pageToken) : undefined;
    if ((params.pageToken && !before) || params.contextId.includes('\u0000'))
      return { tasks: [], nextPageToken: '', pageSize, totalSize: 0 };
    const { tasks, total } = await this.tasks.list(ownerOf(context), {
      contextId: params.contextId || undefined,
      state: params.status ? taskStateToJSON(taskStateFromJSON(params.status)) : undefined,
      statusAfter: params.statusTimestampAfter ? new Date(params.statusTimestampAfter) : undefined,
      before,
      limit: pageSize + 1,
    });
    const page = tasks.slice(0, pageSize);
    const last = page[page.length - 1];
    return {
      tasks: page.map((r) => {
        const t = Task.fromJSON(r.task);
        return params.includeArtifacts ? t : { ...t, artifacts: [] };
      }),
      nextPageToken: tasks.length > pageSize && last ? cursorOf(last.statusAt, last.id) : '',
      pageSize,
      totalSize: total,
    };
  }
}
