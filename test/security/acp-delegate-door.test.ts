/**
 * `delegate_payment` refuses another organization's checkout session at the door (issue #10, finding 8): the same 404
 * as a missing one, on the ACP binding, REST, MCP and A2A; no token is stored for it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startHarness, type Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import { SURFACES } from '../support/surfaces.ts';
import { ACP_VERSION, acpClient, createBody, delegateBody, must, shopWithTier } from '../support/acp.ts';

let h: Harness;
before(async () => {
  h = await startHarness({ WEBHOOK_DISPATCH_MS: '0' });
});
after(async () => {
  await h?.close();
});

test("delegate_payment for another organization's checkout session is 404 on every surface, like a missing one", async () => {
  const victim = await shopWithTier(h);
  const attacker = await shopWithTier(h);
  const session = must(await acpClient(h, victim.apiKey).post('/checkout_sessions', createBody(victim.tierId)), 201);
  const [before] = await h.db.execute<{ n: number }>('select count(*)::int as n from acp_vault_tokens');
  const acp = await restClient(h.url, attacker.apiKey).post(
    '/agentic_commerce/delegate_payment',
    delegateBody({ checkout_session_id: session.id, merchant_id: victim.shopId }),
    {
      'api-version': ACP_VERSION,
      'idempotency-key': randomUUID(),
    },
  );
  assert.equal(acp.status, 404, JSON.stringify(acp.body));
  const missing = await restClient(h.url, attacker.apiKey).post(
    '/agentic_commerce/delegate_payment',
    delegateBody({ checkout_session_id: 'cs_missing0000000', merchant_id: victim.shopId }),
    {
      'api-version': ACP_VERSION,
      'idempotency-key': randomUUID(),
    },
  );
  assert.equal(missing.status, 404);
  assert.equal(acp.body.code, missing.body.code);
  for (const surface of SURFACES) {
    const { call, done } = await surface.connect(h, attacker.apiKey);
    try {
      // Over MCP the ACP tools refuse with a JSON-RPC error carrying the ACP error as its data (test/acp/mcp.test.ts).
      const out = await call(
        'delegate_payment',
        {
          meta: { api_version: ACP_VERSION },
          payload: delegateBody({ checkout_session_id: session.id, merchant_id: victim.shopId }),
        },
        { idempotencyKey: randomUUID() },
      ).catch((err: { data?: { code?: string; message?: string } }) => ({
        ok: false as const,
        code: err.data?.code ?? 'thrown',
        message: err.data?.message ?? '',
        error: err.data,
      }));
      assert.equal(out.ok, false, surface.name);
      // Over MCP the ACP Error's code is from delegate_payment's closed enum, our code leading its message.
      if (!out.ok)
        assert.ok(
          out.code === 'not_found' || (out.code === 'invalid_card' && out.message.startsWith('not_found: ')),
          surface.name,
        );
    } finally {
      await done();
    }
  }
  const [afterwards] = await h.db.execute<{ n: number }>('select count(*)::int as n from acp_vault_tokens');
  assert.equal(afterwards?.n, before?.n);
  const own = await acpClient(h, victim.apiKey).post(
    '/agentic_commerce/delegate_payment',
    delegateBody({ checkout_session_id: session.id, merchant_id: victim.shopId }),
  );
  assert.equal(own.status, 201, JSON.stringify(own.body));
});
