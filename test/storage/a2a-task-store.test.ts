import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { A2aTasks } from '../../src/storage/a2a-tasks.ts';
import type { Database } from '../../src/storage/database.ts';
import { openTestDatabase } from '../support/database.ts';

let db: Database;
before(async () => {
  ({ db } = await openTestDatabase());
});
after(async () => {
  await db.close();
});

test('a task is written with an asynchronous commit for its own statement only: readable at once, and the pooled connection keeps synchronous_commit on', async () => {
  const tasks = new A2aTasks(db);
  const now = new Date('2026-11-23T12:00:00Z');
  const task = { id: 'task_1', contextId: 'ctx_1', status: { state: 'TASK_STATE_COMPLETED' } };
  await tasks.save(
    'owner_a',
    { id: 'task_1', contextId: 'ctx_1', state: 'TASK_STATE_COMPLETED', statusAt: now, task },
    now,
  );
  assert.deepEqual(await tasks.load('owner_a', 'task_1'), task);
  assert.equal(await tasks.load('owner_b', 'task_1'), undefined, "another owner's task is not found");
  // The same row saved again (a later state) replaces it.
  const later = { ...task, status: { state: 'TASK_STATE_CANCELED' } };
  await tasks.save(
    'owner_a',
    { id: 'task_1', contextId: 'ctx_1', state: 'TASK_STATE_CANCELED', statusAt: now, task: later },
    now,
  );
  assert.deepEqual(await tasks.load('owner_a', 'task_1'), later);
  // set_config(..., true) ends with the statement's transaction: no pooled connection is left asynchronous.
  const settings = await Promise.all(
    Array.from({ length: 10 }, () => db.execute<{ synchronous_commit: string }>('show synchronous_commit')),
  );
  for (const [row] of settings) assert.equal(row?.synchronous_commit, 'on');
});

test("the task store's copy is deep and exact: nested parts, byte arrays, an own __proto__ key kept as a key", async () => {
  const { copyOf } = await import('../../src/protocols/a2a/task-store.ts');
  const data = JSON.parse('{"input":{"__proto__":{"quoteId":"q_1"},"n":[1,{"x":null}]}}') as Record<string, any>;
  const task = {
    id: 't',
    history: [{ parts: [{ content: { $case: 'data', value: data } }, { raw: new Uint8Array([1, 2, 3]) }] }],
    meta: undefined,
  };
  const copy = copyOf(task);
  assert.deepEqual(copy, task);
  assert.equal(
    Object.getPrototypeOf(copy.history[0]!.parts[0]!.content!.value.input),
    Object.prototype,
    'the prototype is not set',
  );
  assert.ok(Object.hasOwn(copy.history[0]!.parts[0]!.content!.value.input, '__proto__'));
  copy.history[0]!.parts[0]!.content!.value.input.n[1].x = 'changed';
  copy.history[0]!.parts[1]!.raw![0] = 9;
  assert.equal(data.input.n[1].x, null, 'the original is untouched');
  assert.equal(task.history[0]!.parts[1]!.raw![0], 1);
  assert.ok('meta' in copy);
});
