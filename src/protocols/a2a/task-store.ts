/** A bounded in-memory A2A task store: tasks are visible only to the caller scope that made them; the oldest are evicted. */
import type { ListTasksRequest, ListTasksResponse, Task } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';

/** How many tasks are kept in all (the SDK's InMemoryTaskStore keeps every task forever). */
export const DEFAULT_TASK_CAPACITY = 10_000;

const scopeOf = (c: ServerCallContext) => `${c.tenant ?? ''}\u0000${c.user?.userName || 'unknown'}`;
const newestFirst = (a: Task, b: Task) =>
  (b.status?.timestamp ?? '').localeCompare(a.status?.timestamp ?? '') || b.id.localeCompare(a.id);
const cursorOf = (t: Task) => Buffer.from(JSON.stringify([t.status?.timestamp ?? '', t.id])).toString('base64url');

/**
 * Tasks are results the caller may read back (GetTask, ListTasks); the tool outcome itself lives in
 * the database, so losing the oldest tasks past `capacity` (or on restart) loses no business state.
 */
export class BoundedTaskStore implements TaskStore {
  private readonly tasks = new Map<string, { scope: string; task: Task }>();
  private readonly capacity: number;

  constructor(capacity = DEFAULT_TASK_CAPACITY) {
    this.capacity = capacity;
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const scope = scopeOf(context);
    const key = `${scope}\u0000${task.id}`;
    this.tasks.delete(key);
    this.tasks.set(key, { scope, task: structuredClone(task) });
    while (this.tasks.size > this.capacity) this.tasks.delete(this.tasks.keys().next().value!);
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const entry = this.tasks.get(`${scopeOf(context)}\u0000${taskId}`);
    return entry && structuredClone(entry.task);
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const scope = scopeOf(context);
    const after = params.statusTimestampAfter ? Date.parse(params.statusTimestampAfter) : undefined;
    const all = [...this.tasks.values()]
      .filter((e) => e.scope === scope)
      .map((e) => e.task)
      .filter((t) => !params.contextId || t.contextId === params.contextId)
      .filter((t) => !params.status || t.status?.state === params.status)
      .filter((t) => after === undefined || Date.parse(t.status?.timestamp ?? '') >= after)
      .sort(newestFirst);
    const start = params.pageToken ? all.findIndex((t) => cursorOf(t) === params.pageToken) + 1 : 0;
    const pageSize = params.pageSize ?? 50;
    const page = start > 0 || !params.pageToken ? all.slice(start, start + pageSize) : [];
    const more = page.length > 0 && start + page.length < all.length;
    return {
      tasks: page.map((t) => ({ ...structuredClone(t), artifacts: params.includeArtifacts ? structuredClone(t.artifacts) : [] })),
      nextPageToken: more ? cursorOf(page[page.length - 1]!) : '',
      pageSize,
      totalSize: all.length,
    };
  }
}
