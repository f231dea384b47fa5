/**
 * A2A tasks keep no secret at rest: the secret fields of a skill's input (a webhook secret, a sign-in token, an emailed
 * code) and of its output (a webhook signing secret, a session token, an agent token) are stored as "[redacted]".
 * The live answer still carries the output the caller needs, and the call's effect happened; the stored rows and a
 * later tasks/get show no secret. No log line of the server (at trace level) holds one either, on A2A, REST or MCP.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import type { Client } from '@a2a-js/sdk/client';
import { REDACTED } from '../../src/kernel/secret-fields.ts';
import { createLogger } from '../../src/log.ts';
import { a2aClient, outcomeOf, runSkill, sendParts, taskOf, type SkillOutcome } from '../support/a2a.ts';
import { startHarness } from '../support/harness.ts';
import { callTool, mcpInMemory } from '../support/mcp.ts';
import { restClient } from '../support/rest.ts';
import { codeIn, signInTokenIn, startMailbox } from '../support/smtp.ts';
import { must, newEmail, type World } from '../support/buyers.ts';

/** Every line the server logs, through the service's own logger (its redaction included), at its most verbose. */
const logLines: string[] = [];
const logSink = new Writable({
  write(chunk: Buffer, _enc, done) {
    logLines.push(chunk.toString('utf8'));
    done();
  },
});

const log = createLogger('trace', logSink);
let w: World;
before(async () => {
  const box = await startMailbox();
  const h = await startHarness(
    {
      SMTP_URL: box.url,
      SWEEP_INTERVAL_MS: '0',
      SANDBOX_DISPATCH_MS: '0',
      WEBHOOK_DISPATCH_MS: '0',
      RATE_LIMIT_PER_MINUTE: '100000',
      WEBHOOK_ALLOW_LOOPBACK: 'true',
    },
    { log },
  );
  w = { h, box, close: async () => (await h.close(), await box.close()) };
});
after(async () => {
  await w?.close();
});

/** Every stored task, as PostgreSQL holds them. */
async function allRows(): Promise<string> {
  const rows = await w.h.db.execute<{ task: string }>('select task::text as task from a2a_tasks');
  return rows.map((r) => r.task).join('\n');
}

/** The stored task row, as PostgreSQL holds it. */
async function storedRow(taskId: string): Promise<string> {
  const rows = await w.h.db.execute<{ task: unknown }>('select task from a2a_tasks where id = ?', [taskId]);
  assert.equal(rows.length, 1, `task ${taskId} is stored`);
  return typeof rows[0]!.task === 'string' ? rows[0]!.task : JSON.stringify(rows[0]!.task);
}

/** The task as tasks/get answers it to its owner, through the SDK client. */
async function readBack(client: Client, taskId: string) {
  return client.getTask({ tenant: '', id: taskId, historyLength: undefined });
}

function ok(outcome: SkillOutcome): any {
  assert.ok(outcome.ok, JSON.stringify(outcome.ok ? '' : outcome.error));
  return outcome.output;
}

const callIn = (task: any) => task.history[0].parts[0].content.value;
const outputIn = (task: any) => task.artifacts[0].parts[0].content.value;

function assertNoSecret(where: string, text: string, secrets: string[]) {
  for (const s of secrets) assert.ok(!text.includes(s), `${where} holds a secret (${s.slice(0, 6)}…)`);
}
const assertNotLogged = (secrets: string[]) => assertNoSecret('the server log', logLines.join(''), secrets);

test('set_acp_webhook and create_webhook over A2A: the secrets sent and received are kept redacted, the call took effect', async () => {
  const m = await w.h.merchant();
  const client = await a2aClient(w.h, m.apiKey);
  const shared = `acp-shared-${crypto.randomUUID()}`;
  const set = await runSkill(client, 'set_acp_webhook', {
    merchantId: m.shopId,
    url: 'http://127.0.0.1:9/acp',
    secret: shared,
  });
  assert.equal(ok(set).url, 'http://127.0.0.1:9/acp');
  const read = must(await restClient(w.h.url, m.apiKey).get(`/v1/integration/shops/${m.shopId}/acp-webhook`), 200);
  assert.equal(read.webhook?.url ?? read.url, 'http://127.0.0.1:9/acp', 'the endpoint was stored');

  const created = await runSkill(client, 'create_webhook', {
    merchantId: m.shopId,
    url: 'http://127.0.0.1:9/hook',
    events: ['order.completed'],
  });
  const signing = ok(created).secret as string;
  assert.match(signing, /^whsec_/, 'the live answer carries the signing secret once');

  for (const [task, secret] of [
    [taskOf(set), shared],
    [taskOf(created), signing],
  ] as const) {
    assertNoSecret('the stored row', await storedRow(task.id), [secret]);
    assertNoSecret('every stored task', await allRows(), [secret]);
    const again = await readBack(client, task.id);
    assertNoSecret('tasks/get', JSON.stringify(again), [secret]);
    assert.equal(again.status?.state, taskOf(set).status?.state, 'the task itself is intact');
  }
  const setAgain = await readBack(client, taskOf(set).id);
  assert.equal(callIn(setAgain).input.secret, REDACTED);
  assert.equal(callIn(setAgain).input.url, 'http://127.0.0.1:9/acp', 'the other fields are kept');
  const createdAgain = await readBack(client, taskOf(created).id);
  assert.equal(outputIn(createdAgain).secret, REDACTED);
  assert.equal(outputIn(createdAgain).id, ok(created).id);
  assertNotLogged([shared, signing]);
});

test('sign-in and an emailed code over A2A: the link token, the code, the session and agent tokens are kept redacted', async () => {
  const email = newEmail();
  const anon = await a2aClient(w.h);
  ok(await runSkill(anon, 'request_sign_in_link', { email }));
  const link = signInTokenIn(w.box.last(email));
  const signedIn = await runSkill(anon, 'complete_sign_in', { token: link });
  const session = ok(signedIn).token as string;
  must(await restClient(w.h.url, session).get('/v1/buyer/session'), 200);

  const buyer = await a2aClient(w.h, session);
  const asked = ok(await runSkill(buyer, 'request_verification_code', { purpose: 'create_agent' }));
  const code = codeIn(w.box.last(email));
  const made = await runSkill(buyer, 'create_agent', { name: 'Agent', challengeId: asked.challengeId, code });
  const agentToken = ok(made).token as string;
  assert.match(agentToken, /^tag_/, 'the live answer carries the agent token');
  const asAgent = await restClient(w.h.url, agentToken).get('/v1/catalog/shops');
  assert.equal(asAgent.body.message, 'A agent credential may not call list_shops.', 'the agent token authenticates');

  const secrets = [link, session, code, agentToken];
  assertNoSecret('the create_agent row', await storedRow(taskOf(made).id), secrets);
  assertNoSecret('every stored task (an anonymous sign-in task is not kept at all)', await allRows(), secrets);
  const again = await readBack(buyer, taskOf(made).id);
  assertNoSecret('tasks/get', JSON.stringify(again), secrets);
  assert.equal(callIn(again).input.code, REDACTED);
  assert.equal(callIn(again).input.challengeId, asked.challengeId);
  assert.equal(outputIn(again).token, REDACTED);
  assert.equal(outputIn(again).agent.id, ok(made).agent.id);
  assertNotLogged(secrets);
});

test('an unknown skill keeps no input at all: a mistyped call cannot leave a secret behind', async () => {
  const m = await w.h.merchant();
  const client = await a2aClient(w.h, m.apiKey);
  const secret = `typo-${crypto.randomUUID()}`;
  const refused = await runSkill(client, 'set_acp_webhok', {
    merchantId: m.shopId,
    url: 'http://127.0.0.1:9/acp',
    secret,
  });
  assert.equal(refused.ok, false);
  assertNoSecret('the stored row', await storedRow(refused.task.id), [secret]);
  assert.equal(callIn(await readBack(client, refused.task.id)).input, REDACTED);
  assertNotLogged([secret]);
});

test('a corrected message on an input-required task: both messages are kept redacted, the second call took effect', async () => {
  const m = await w.h.merchant();
  const client = await a2aClient(w.h, m.apiKey);
  const tooShort = `short-${crypto.randomUUID().slice(0, 4)}`;
  const first = await runSkill(client, 'set_acp_webhook', {
    merchantId: m.shopId,
    url: 'http://127.0.0.1:9/fix',
    secret: tooShort,
  });
  assert.equal(first.state, 'TASK_STATE_INPUT_REQUIRED', JSON.stringify(first.ok ? '' : first.error));
  const good = `acp-shared-${crypto.randomUUID()}`;
  const data = {
    skill: 'set_acp_webhook',
    input: { merchantId: m.shopId, url: 'http://127.0.0.1:9/fix', secret: good },
  };
  const second = outcomeOf(await sendParts(client, [{ data, mediaType: 'application/json' }], first.task.id));
  assert.equal(ok(second).url, 'http://127.0.0.1:9/fix');
  assertNoSecret('the stored row', await storedRow(first.task.id), [tooShort, good]);
  const again = await readBack(client, first.task.id);
  const calls = again.history.flatMap((msg: any) => msg.parts.map((p: any) => p.content?.value?.input).filter(Boolean));
  assert.deepEqual(
    calls.map((input: any) => input.secret),
    [REDACTED, REDACTED],
    'both calls are in the history, redacted',
  );
  assertNotLogged([tooShort, good]);
});

test('REST and MCP log no secret input or output: webhook secrets, provider keys, refused inputs', async () => {
  const m = await w.h.merchant();
  const rest = restClient(w.h.url, m.apiKey);
  const mcp = await mcpInMemory(w.h, m.apiKey);
  const viaRest = `rest-shared-${crypto.randomUUID()}`;
  const viaMcp = `mcp-shared-${crypto.randomUUID()}`;
  must(
    await rest.put(`/v1/integration/shops/${m.shopId}/acp-webhook`, { url: 'http://127.0.0.1:9/acp', secret: viaRest }),
    200,
  );
  assert.ok(
    (await callTool(mcp, 'set_acp_webhook', { merchantId: m.shopId, url: 'http://127.0.0.1:9/acp', secret: viaMcp }))
      .ok,
  );
  const signing = must(
    await rest.post('/v1/integration/webhooks', {
      merchantId: m.shopId,
      url: 'http://127.0.0.1:9/h',
      events: ['order.completed'],
    }),
    201,
  ).secret;
  const made = await callTool(mcp, 'create_webhook', {
    merchantId: m.shopId,
    url: 'http://127.0.0.1:9/h2',
    events: ['order.completed'],
  });
  assert.ok(made.ok);
  const secretKey = `sk_test_${crypto.randomUUID().replaceAll('-', '')}`;
  const webhookSecret = `whsec_${crypto.randomUUID().replaceAll('-', '')}`;
  const provider = {
    provider: 'stripe',
    id: m.shopId,
    publishableKey: `pk_test_${crypto.randomUUID().replaceAll('-', '')}`,
    secretKey,
    webhookSecret,
  };
  const configured = await callTool(mcp, 'configure_payment_provider', provider);
  assert.ok(configured.ok, JSON.stringify(configured));
  // Refused inputs: an unknown field next to the secret, and a too-short secret.
  const refusedSecret = `refused-${crypto.randomUUID()}`;
  assert.equal(
    (
      await rest.put(`/v1/integration/shops/${m.shopId}/acp-webhook`, {
        url: 'http://127.0.0.1:9/acp',
        secret: refusedSecret,
        extra: 1,
      })
    ).status,
    400,
  );
  assert.equal(
    (await callTool(mcp, 'set_acp_webhook', { merchantId: m.shopId, url: 'ftp://x', secret: refusedSecret })).ok,
    false,
  );
  await mcp.close();
  // The sink sees the server's lines, and the logger's own redaction catches a secret field logged by mistake.
  log.info({ input: { secret: viaRest, secretKey, webhookSecret, token: signing } }, 'redaction probe');
  assert.ok(logLines.some((l) => l.includes('redaction probe') && l.includes('[redacted]')));
  assertNotLogged([viaRest, viaMcp, signing, (made as any).output.secret, secretKey, webhookSecret, refusedSecret]);
});
