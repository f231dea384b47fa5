/** UCP's A2A binding: a platform that read the profile finds our agent card and buys over A2A with a test card. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentCard, Message, taskStateToJSON, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { startHarness, type Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { restClient } from '../support/rest.ts';
import { must, shopWithTier } from '../support/acp.ts';

const V = '2026-04-08';
const UCP_EXTENSION = `https://ucp.dev/${V}/specification/reference`;
const PROFILE = {
  ucp: {
    version: V,
    services: {},
    payment_handlers: {},
    capabilities: { 'dev.ucp.shopping.checkout': [{ version: V }] },
  },
};
let h: Harness;
let profiles: Server;
let profileUrl = '';
before(async () => {
  profiles = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(PROFILE)),
  );
  await new Promise<void>((resolve) => profiles.listen(0, '127.0.0.1', resolve));
  profileUrl = `http://127.0.0.1:${(profiles.address() as AddressInfo).port}/platform.json`;
  h = await startHarness({ SWEEP_INTERVAL_MS: '0', SANDBOX_DISPATCH_MS: '0', WEBHOOK_ALLOW_LOOPBACK: 'true' });
});
after(async () => {
  await h?.close();
  profiles?.close();
});

/** The real SDK client from the card the profile's `a2a` binding names, sending UCP-Agent and activating UCP. */
async function ucpClient(cardUrl: string, apiKey: string): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${apiKey}`);
    headers.set('ucp-agent', `profile="${profileUrl}"`);
    headers.set('x-a2a-extensions', UCP_EXTENSION);
    return fetch(input, { ...init, headers });
  };
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
  });
  return new ClientFactory(options).createFromUrl(new URL(cardUrl).origin);
}

/** Sends one message of data parts; the answer. */
async function send(client: Client, ...data: Record<string, unknown>[]): Promise<Task | Message> {
  const message = Message.fromJSON({
    messageId: crypto.randomUUID(),
    role: 'ROLE_USER',
    parts: data.map((d) => ({ data: d, mediaType: 'application/json' })),
  });
  return client.sendMessage({ tenant: '', configuration: undefined, metadata: undefined, message });
}

/** The checkout an answer carries in its `a2a.ucp.checkout` data part. */
function checkoutOf(answer: Task | Message) {
  assert.ok(!('status' in answer), `expected a message, got ${JSON.stringify(answer)}`);
  const content = answer.parts[0]?.content;
  assert.equal(content?.$case, 'data');
  const checkout = (content.value as Record<string, any>)['a2a.ucp.checkout'];
  assert.ok(checkout, JSON.stringify(content.value));
  return checkout;
}

test('over A2A a platform creates, updates and completes a UCP checkout with a test card', async () => {
  const s = await shopWithTier(h, { capacity: 5 });
  const profile = must(await restClient(h.url).get('/.well-known/ucp'), 200);
  const a2a = profile.ucp.services['dev.ucp.shopping'].find((b: { transport: string }) => b.transport === 'a2a');
  assert.equal(a2a.endpoint, `${h.url}/.well-known/agent-card.json`);
  const card = AgentCard.fromJSON(must(await restClient(h.url).get('/.well-known/agent-card.json'), 200));
  const ext = card.capabilities?.extensions.find((e) => e.uri === UCP_EXTENSION);
  assert.deepEqual(ext?.params, { capabilities: { 'dev.ucp.shopping.checkout': [{ version: V }] } });
  const client = await ucpClient(a2a.endpoint, s.apiKey);
  const line = (quantity: number) => ({ line_items: [{ item: { id: s.tierId }, quantity }] });
  const created = checkoutOf(await send(client, { action: 'create_checkout', 'a2a.ucp.checkout': line(1) }));
  assert.equal(created.status, 'ready_for_complete');
  assert.match(created.id, /^cs_/);
  const updated = checkoutOf(
    await send(client, { action: 'update_checkout', 'a2a.ucp.checkout': { id: created.id, ...line(2) } }),
  );
  assert.equal(updated.line_items[0].quantity, 2);
  const payment = {
    id: 'ins_1',
    handler_id: 'sandbox_card',
    type: 'card',
    credential: { type: 'sandbox_token', token: 'pm_sandbox_visa' },
  };
  const done = checkoutOf(
    await send(client, { action: 'complete_checkout', id: created.id }, { 'a2a.ucp.checkout.payment': payment }),
  );
  assert.equal(done.status, 'completed');
  assert.match(done.order.id, /^ord_/);
  const got = checkoutOf(await send(client, { action: 'get_checkout', id: created.id }));
  assert.equal(got.order.id, done.order.id);
  const counts = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([counts.sold, counts.held], [2, 0]);

  // An action the binding does not define is refused as a task in INPUT_REQUIRED with the error's data part.
  const refused = await send(client, { action: 'add_to_checkout' });
  assert.ok('status' in refused);
  assert.equal(taskStateToJSON(refused.status!.state), 'TASK_STATE_INPUT_REQUIRED');
  const error = refused.status!.message!.parts.find((p) => p.content?.$case === 'data')!.content!.value as any;
  assert.equal(error.code, 'invalid_input');
});
