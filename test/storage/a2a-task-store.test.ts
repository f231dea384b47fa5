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
  await tasks.save('owner_a', { id: 'task_1', contextId: 'ctx_1', state: 'TASK_STATE_COMPLETED', statusAt: now, task }, now);
  assert.deepEqual(await tasks.load('owner_a', 'task_1'), task);
  assert.equal(await tasks.load('owner_b', 'task_1'), undefined, "another owner's task is not found");
  // The same row saved again (a later state) replaces it.
  const later = { ...task, status: { state: 'TASK_STATE_CANCELED' } };
  await tasks.save('owner_a', { id: 'task_1', contextId: 'ctx_1', state: 'TASK_STATE_CANCELED', statusAt: now, task: later }, now);
  assert.deepEqual(await tasks.load('owner_a', 'task_1'), later);
  // set_config(..., true) ends with the statement's transaction: no pooled connection is left asynchronous.
  const settings = await Promise.all(Array.from({ length: 10 }, () => db.execute<{ synchronous_commit: string }>('show synchronous_commit')));
  for (const [row] of settings) assert.equal(row?.synchronous_commit, 'on');
});
