/**
 * Abuse: A2A tasks live in PostgreSQL, bounded in bytes and time, owned by their principal. An anonymous flood of large
 * messages keeps nothing in process memory; a task made on one server process is read on another; nobody else
 * (another principal, an anonymous caller, a junk bearer) reads it; the sweeper's retention pass expires old tasks.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { pino } from 'pino';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/kernel/config.ts';
import { pruneExpired } from '../../src/storage/retention.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { a2aClient, outcomeOf, runSkill, sendParts } from '../support/a2a.ts';
import { restClient } from '../support/rest.ts';
import { serverEnvFor } from '../support/database.ts';

let h: Harness;
let second: App;
let secondUrl: string;
before(async () => {
  h = await startHarness();
  // A second server process over the same database: shares nothing with the first but PostgreSQL.
  second = await createApp(
    loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...serverEnvFor(h.dbUrl) }),
    h.db,
    {
      clock: h.clock,
      log: pino({ level: 'silent' }),
    },
  );
  secondUrl = await second.listen();
});
after(async () => {
  await second?.close();
  await h?.close();
});

const getTask = (url: string, id: string, token?: string) =>
  restClient(url, token).post(
    '/a2a/jsonrpc',
    { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id } },
    { 'a2a-version': '1.0' },
  );

/**
 * A raw JSON-RPC SendMessage of one skill call with `configuration`, as `token` (the SDK client cannot set every
 * option).
 */
const sendRaw = (
  token: string,
  configuration: Record<string, unknown>,
  skill: string,
  input: Record<string, unknown>,
) =>
  restClient(h.url, token).post(
    '/a2a/jsonrpc',
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: {
        configuration,
        message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ data: { skill, input } }] },
      },
    },
    { 'a2a-version': '1.0' },
  );

const bigMessage = (bytes: number) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'SendMessage',
  params: {
    message: {
      messageId: crypto.randomUUID(),
      role: 'ROLE_USER',
      parts: [
        {
          data: { skill: 'list_events', input: { merchantId: 'shop_x', pad: 'x'.repeat(bytes) } },
          mediaType: 'application/json',
        },
      ],
    },
  },
});

/** A call answered with a task: create_event changes something (a read-only skill answers with a message). */
async function makeTask(client: Awaited<ReturnType<typeof a2aClient>>, shopId: string) {
  const made = await runSkill(client, 'create_event', {
    merchantId: shopId,
    title: 'Tasked',
    startsAt: '2030-01-01T20:00:00Z',
  });
  assert.ok(made.ok && made.task, JSON.stringify(made));
  return { ...made, task: made.task };
}

test('a task made on one server process is read by its principal on another, with its output', async () => {
  const m = await h.merchant();
  const made = await makeTask(await a2aClient(h, m.apiKey), m.shopId);
  const read = await getTask(secondUrl, made.task.id, m.apiKey);
  assert.equal(read.body.result?.id, made.task.id, JSON.stringify(read.body));
  assert.equal(read.body.result.status.state, 'TASK_STATE_COMPLETED');
  assert.deepEqual(read.body.result.artifacts[0].parts[0].data, made.output);
});

test('nobody but the principal that made a task reads it: another organization, an anonymous caller, a junk bearer', async () => {
  const a = await h.merchant();
  const b = await h.merchant();
  const made = await makeTask(await a2aClient(h, a.apiKey), a.shopId);
  for (const token of [b.apiKey, undefined, 'junk-bearer']) {
    const res = await getTask(h.url, made.task.id, token);
    assert.equal(res.body.error?.code, -32001, `${token}: ${JSON.stringify(res.body)}`); // TaskNotFound
  }
});

test("an anonymous caller's task is read by no one, not even another anonymous caller", async () => {
  const anon = await a2aClient(h);
  const task = await sendParts(anon, [{ data: { skill: 'list_pools', input: {} } }]);
  const res = await getTask(h.url, task.id);
  assert.equal(res.body.error?.code, -32001, JSON.stringify(res.body));
  const m = await h.merchant();
  assert.equal((await getTask(secondUrl, task.id, m.apiKey)).body.error?.code, -32001);
});

test('an anonymous flood of 900 KB messages keeps nothing in process memory, and stored tasks stay small', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const api = restClient(h.url);
  const heap = () => {
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };
  await api.post('/a2a/jsonrpc', bigMessage(1000), { 'a2a-version': '1.0' }); // warm up
  const before = heap();
  const calls = 60;
  for (let i = 0; i < calls; i++) {
    const res = await api.post('/a2a/jsonrpc', bigMessage(900 * 1024), { 'a2a-version': '1.0' });
    assert.equal(res.status, 200);
    assert.ok(res.body.result?.task?.status?.state, JSON.stringify(res.body).slice(0, 300));
  }
  const grown = heap() - before;
  // 60 × 900 KB kept would be over 54 MB; what remains is noise from pools and caches.
  assert.ok(grown < 16 * 1024 * 1024, `heap grew by ${Math.round(grown / 1024 / 1024)} MB`);
  // An authenticated caller's large message is kept, but its input is not: the stored task stays bounded in bytes.
  const m = await h.merchant();
  const res = await restClient(h.url, m.apiKey).post('/a2a/jsonrpc', bigMessage(900 * 1024), { 'a2a-version': '1.0' });
  const id = res.body.result.task.id as string;
  const [row] = await h.db.execute<{ n: number }>('select octet_length(task::text) as n from a2a_tasks where id = ?', [
    id,
  ]);
  assert.ok(row && row.n < 64 * 1024, `stored ${row?.n} bytes`);
  const read = await getTask(h.url, id, m.apiKey);
  assert.equal(read.body.result.id, id);
});

test('the retention pass deletes tasks a day old; younger ones stay readable', async () => {
  const m = await h.merchant();
  const client = await a2aClient(h, m.apiKey);
  const old = await makeTask(client, m.shopId);
  h.clock.advance(23 * 3600 * 1000);
  const young = await makeTask(client, m.shopId);
  h.clock.advance(2 * 3600 * 1000);
  const report = await pruneExpired(h.db, h.clock.now());
  assert.ok(report.a2aTasks >= 1, JSON.stringify(report));
  assert.equal((await getTask(h.url, old.task.id, m.apiKey)).body.error?.code, -32001);
  assert.equal((await getTask(h.url, young.task.id, m.apiKey)).body.result?.id, young.task.id);
});

test("a task is written once, in its final state; an anonymous caller's task is never written", async () => {
  // Every write to a2a_tasks is noted by a trigger in this file's own database, for the length of this test.
  await h.db.execute('create table a2a_task_writes (id text not null, op text not null, state text not null)');
  await h.db.execute(
    `create function note_a2a_task_write() returns trigger language plpgsql as $$
     begin insert into a2a_task_writes values (new.id, tg_op, new.state); return new; end $$`,
  );
  await h.db.execute(
    'create trigger note_a2a_task_write after insert or update on a2a_tasks for each row execute function note_a2a_task_write()',
  );
  const writes = async (id: string) =>
    (await h.db.execute<{ op: string; state: string }>('select op, state from a2a_task_writes where id = ?', [id])).map(
      (w) => `${w.op} ${w.state}`,
    );
  try {
    const m = await h.merchant();
    const client = await a2aClient(h, m.apiKey);
    const done = await runSkill(client, 'create_event', {
      merchantId: m.shopId,
      title: 'Written once',
      startsAt: '2030-01-01T20:00:00Z',
    });
    assert.ok(done.ok && done.task);
    assert.deepEqual(await writes(done.task.id), ['INSERT TASK_STATE_COMPLETED']);
    // A read answered with a message writes no task at all.
    const all = async () => (await h.db.execute<{ n: number }>('select count(*)::int as n from a2a_task_writes'))[0]!.n;
    const before = await all();
    assert.equal((await runSkill(client, 'list_pools', { merchantId: m.shopId })).state, 'MESSAGE');
    assert.equal(await all(), before);
    const refused = await runSkill(client, 'list_pools', { merchantId: m.shopId, colour: 'red' });
    assert.equal(refused.ok ? 'ok' : refused.state, 'TASK_STATE_INPUT_REQUIRED');
    assert.ok(refused.task);
    assert.deepEqual(await writes(refused.task.id), ['INSERT TASK_STATE_INPUT_REQUIRED']);
    // The corrected follow-up on that task runs the skill again; the task it names already exists, so it is updated.
    const followUp = outcomeOf(
      await sendParts(client, [{ data: { skill: 'list_pools', input: { merchantId: m.shopId } } }], refused.task.id),
    );
    assert.ok(followUp.ok);
    assert.equal((await writes(refused.task.id)).at(-1), 'UPDATE TASK_STATE_COMPLETED');
    const anonymous = await sendParts(await a2aClient(h), [
      { data: { skill: 'list_pools', input: { merchantId: m.shopId } } },
    ]);
    assert.equal(outcomeOf(anonymous).state, 'TASK_STATE_AUTH_REQUIRED');
    assert.deepEqual(await writes(anonymous.id), []);
  } finally {
    await h.db.execute('drop trigger note_a2a_task_write on a2a_tasks');
    await h.db.execute('drop function note_a2a_task_write()');
    await h.db.execute('drop table a2a_task_writes');
  }
});

test('a task answered at once (returnImmediately) is stored before its id is sent, and ends completed', async () => {
  const m = await h.merchant();
  const res = await sendRaw(m.apiKey, { returnImmediately: true }, 'list_pools', { merchantId: m.shopId });
  // list_pools only reads, but a caller that asks for its task at once gets one (not a message).
  const id = res.body.result?.task?.id as string;
  assert.ok(id, JSON.stringify(res.body));
  // Read on the other process as soon as the answer is in: the task is there, working or already completed.
  const first = await getTask(secondUrl, id, m.apiKey);
  assert.ok(
    ['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED'].includes(first.body.result?.status?.state),
    JSON.stringify(first.body),
  );
  // The rest of the call is written after the answer: wait for it (a generous bound on a busy machine, no sleep).
  let state = first.body.result.status.state as string;
  for (let i = 0; i < 2000 && state !== 'TASK_STATE_COMPLETED'; i++) {
    await new Promise((ok) => setImmediate(ok));
    state = (await getTask(secondUrl, id, m.apiKey)).body.result?.status?.state;
  }
  assert.equal(state, 'TASK_STATE_COMPLETED');
  const read = await getTask(secondUrl, id, m.apiKey);
  assert.equal(read.body.result.artifacts[0].parts[0].data.pools.length, 0);
});

test('a call answered at once but refused before its skill runs gets its final task, not a working one', async () => {
  const m = await h.merchant();
  const res = await sendRaw(m.apiKey, { returnImmediately: true }, 'no_such_skill', {});
  const task = res.body.result?.task;
  assert.equal(task?.status?.state, 'TASK_STATE_INPUT_REQUIRED', JSON.stringify(res.body));
  assert.equal((await getTask(secondUrl, task.id, m.apiKey)).body.result?.status?.state, 'TASK_STATE_INPUT_REQUIRED');
});

test('an answer trimmed by historyLength does not trim the stored task', async () => {
  const m = await h.merchant();
  const res = await sendRaw(m.apiKey, { historyLength: 0 }, 'create_event', {
    merchantId: m.shopId,
    title: 'Trimmed',
    startsAt: '2030-01-01T20:00:00Z',
  });
  const task = res.body.result?.task;
  assert.equal(task?.status?.state, 'TASK_STATE_COMPLETED', JSON.stringify(res.body));
  assert.equal(task.history?.length ?? 0, 0);
  const read = await getTask(secondUrl, task.id, m.apiKey);
  assert.equal(read.body.result.history.length, 1, JSON.stringify(read.body));
  assert.equal(read.body.result.history[0].parts[0].data.skill, 'create_event');
});
