/**
 * ACP's MCP binding on our MCP server: the five checkout tools listed with `{ meta, id, payload }` and working end to
 * end.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startHarness, type Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { MCP_SURFACES } from '../support/mcp.ts';
import {
  ACP_VERSION,
  acpValid,
  completeBody,
  createBody,
  delegateBody,
  delegateValid,
  shopWithTier,
} from '../support/acp.ts';

let h: Harness;
const clients: Client[] = [];
before(async () => {
  h = await startHarness({
    SWEEP_INTERVAL_MS: '0',
    SANDBOX_DISPATCH_MS: '0',
    WEBHOOK_DISPATCH_MS: '0',
    RATE_LIMIT_PER_MINUTE: '100000',
  });
});
after(async () => {
  for (const c of clients) await c.close();
  await h?.close();
});

const BINDING: Record<string, string[]> = {
  create_checkout_session: ['meta', 'payload'],
  get_checkout_session: ['id', 'meta'],
  update_checkout_session: ['id', 'meta', 'payload'],
  complete_checkout_session: ['id', 'meta', 'payload'],
  cancel_checkout_session: ['id', 'meta'],
};

/** Calls an ACP tool; ACP errors arrive as JSON-RPC errors (-32000) with the ACP Error in `data`. */
async function acpCall(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ ok: true; out: any } | { ok: false; code: number; data: any }> {
  try {
    const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
    assert.ok(!r.isError, JSON.stringify(r));
    return { ok: true, out: r.structuredContent };
  } catch (err) {
    if (!(err instanceof McpError)) throw err;
    return { ok: false, code: err.code, data: err.data };
  }
}

const meta = (extra: Record<string, unknown> = {}) => ({ api_version: ACP_VERSION, ...extra });

for (const [surface, connect] of Object.entries(MCP_SURFACES)) {
  describe(surface, () => {
    test('the binding’s tools are listed with meta / id / payload arguments', async () => {
      const client = await connect(h, (await h.merchant()).apiKey);
      clients.push(client);
      const { tools } = await client.listTools();
      for (const [name, props] of Object.entries(BINDING)) {
        const tool = tools.find((t) => t.name === name);
        assert.ok(tool, `${name} is listed`);
        const schema = tool.inputSchema as any;
        assert.deepEqual(
          Object.keys(schema.properties).sort(),
          name === 'cancel_checkout_session' ? ['id', 'meta', 'payload'] : props,
        );
        assert.deepEqual([...(schema.required as string[])].sort(), props, `${name}: required arguments`);
        assert.deepEqual(schema.properties.meta.required, ['api_version']);
        assert.notEqual(schema.properties.meta.additionalProperties, false, 'meta is extensible per the binding');
      }
      assert.ok(tools.some((t) => t.name === 'delegate_payment'));
    });

    test('create → get → update → delegate → complete → cancel refused, over MCP', async () => {
      const s = await shopWithTier(h, { capacity: 4 });
      const client = await connect(h, s.apiKey);
      clients.push(client);
      const created = await acpCall(client, 'create_checkout_session', {
        meta: meta({ idempotency_key: 'mcp-create', user_agent: 'test-agent', future_header: 'ignored' }),
        payload: createBody(s.tierId),
      });
      assert.ok(created.ok, JSON.stringify(created));
      acpValid('CheckoutSession', created.out);
      assert.equal(created.out.status, 'ready_for_payment');
      const replay = await acpCall(client, 'create_checkout_session', {
        meta: meta({ idempotency_key: 'mcp-create' }),
        payload: createBody(s.tierId),
      });
      assert.ok(replay.ok);
      assert.equal(replay.out.id, created.out.id, 'meta.idempotency_key replays the session');
      const id = created.out.id;
      const got = await acpCall(client, 'get_checkout_session', { meta: meta(), id });
      assert.ok(got.ok);
      acpValid('CheckoutSession', got.out);
      const updated = await acpCall(client, 'update_checkout_session', {
        meta: meta(),
        id,
        payload: { buyer: { email: 'mcp@example.test' } },
      });
      assert.ok(updated.ok);
      assert.equal(updated.out.buyer.email, 'mcp@example.test');
      const token = await acpCall(client, 'delegate_payment', {
        meta: meta(),
        payload: delegateBody({ checkout_session_id: id, merchant_id: s.shopId }),
      });
      assert.ok(token.ok);
      delegateValid('DelegatePaymentResponse', token.out);
      const done = await acpCall(client, 'complete_checkout_session', {
        meta: meta({ idempotency_key: 'mcp-complete' }),
        id,
        payload: completeBody(token.out.id),
      });
      assert.ok(done.ok, JSON.stringify(done));
      acpValid('CheckoutSessionWithOrder', done.out);
      assert.equal(done.out.status, 'completed');
      const cancel = await acpCall(client, 'cancel_checkout_session', { meta: meta(), id });
      assert.ok(!cancel.ok);
      assert.equal(cancel.code, -32000);
      acpValid('Error', cancel.data);
      assert.deepEqual([cancel.data.type, cancel.data.code], ['invalid_request', 'checkout_session_not_cancelable']);
      assert.deepEqual([(await assertInvariant(h.db, s.poolId)).sold], [1]);
    });

    test('ACP errors over MCP are -32000 with the ACP Error in data (versions, validation, allowance)', async () => {
      const s = await shopWithTier(h);
      const client = await connect(h, s.apiKey);
      clients.push(client);
      const old = await acpCall(client, 'create_checkout_session', {
        meta: { api_version: '2025-01-01' },
        payload: createBody(s.tierId),
      });
      assert.ok(!old.ok);
      acpValid('Error', old.data);
      assert.deepEqual(
        [old.code, old.data.code, old.data.supported_versions],
        [-32000, 'unsupported_api_version', ['2026-04-17']],
      );
      const none = await acpCall(client, 'get_checkout_session', { meta: {}, id: 'cs_x' });
      assert.ok(!none.ok);
      acpValid('Error', none.data);
      assert.deepEqual([none.data.code, none.data.supported_versions], ['missing_api_version', ['2026-04-17']]);
      const bad = await acpCall(client, 'create_checkout_session', {
        meta: meta(),
        payload: { ...createBody(s.tierId), line_items: [] },
      });
      assert.ok(!bad.ok);
      assert.deepEqual([bad.data.code, bad.data.param], ['invalid_input', '$.payload.line_items']);
      const session = await acpCall(client, 'create_checkout_session', { meta: meta(), payload: createBody(s.tierId) });
      assert.ok(session.ok);
      const token = await acpCall(client, 'delegate_payment', {
        meta: meta(),
        payload: delegateBody({ max_amount: 1, checkout_session_id: session.out.id, merchant_id: s.shopId }),
      });
      assert.ok(token.ok);
      const over = await acpCall(client, 'complete_checkout_session', {
        meta: meta(),
        id: session.out.id,
        payload: completeBody(token.out.id),
      });
      assert.ok(!over.ok);
      assert.deepEqual(
        [over.data.code, over.data.param],
        ['allowance_amount_exceeded', '$.payload.payment_data.instrument.credential.token'],
      );
    });
  });
}
