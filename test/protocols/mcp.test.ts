/**
 * The MCP projection: the same tools, schemas, authorization and errors over in-memory and Streamable HTTP transports.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { listedOutputSchema, toolInputSchema } from '../../src/orchestrator/json-schema.ts';
import { takesIdempotencyArgument } from '../../src/orchestrator/surface-keys.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { callTool, MCP_SURFACES } from '../support/mcp.ts';
import { assertCreateTierWithRestrictions } from '../support/surfaces.ts';

let h: Harness;
const clients: Client[] = [];
before(async () => {
  h = await startHarness();
});
after(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await h?.close();
});

for (const [surface, connect] of Object.entries(MCP_SURFACES)) {
  describe(surface, () => {
    const open = async (token?: string) => {
      const client = await connect(h, token);
      clients.push(client);
      return client;
    };

    test('tools/list offers the tools the caller may call, with the registry schemas and annotations', async () => {
      const m = await h.merchant();
      const { tools } = await (await open(m.apiKey)).listTools();
      const callable = h.app.orchestrator.tools.filter(
        (t) => t.auth.public || (!t.auth.public && t.auth.principals.includes('api_key')),
      );
      assert.ok(tools.length > 10 && tools.length < h.app.orchestrator.tools.length, String(tools.length));
      for (const listed of tools) {
        const tool = h.app.orchestrator.get(listed.name)!;
        assert.ok(callable.includes(tool), tool.name);
        const own = toolInputSchema(tool) as { properties: Record<string, unknown>; required?: string[] };
        // Tools that honour an idempotency key also take it as an optional `idempotencyKey` argument.
        const expected = takesIdempotencyArgument(tool)
          ? {
              ...own,
              properties: { ...own.properties, idempotencyKey: (listed.inputSchema.properties as any).idempotencyKey },
            }
          : own;
        assert.deepEqual(listed.inputSchema, expected, tool.name);
        if (takesIdempotencyArgument(tool))
          assert.equal((listed.inputSchema.properties as any).idempotencyKey.type, 'string');
        assert.ok(!(listed.inputSchema.required ?? []).includes('idempotencyKey'));
        assert.deepEqual(listed.outputSchema, listedOutputSchema(tool), tool.name);
        assert.equal(listed.title, tool.title);
        assert.equal(listed.description, tool.description);
        assert.deepEqual(listed.annotations, { title: tool.title, ...tool.annotations });
      }
      assert.ok(tools.some((t) => t.name === 'reserve') && !tools.some((t) => t.name === 'create_api_key'));
    });

    test('list_pools returns the shop pools with live availability', async () => {
      const m = await h.merchant();
      const client = await open(m.apiKey);
      const pool = await callTool(client, 'create_pool', { merchantId: m.shopId, capacity: 40, title: 'Balcony' });
      assert.ok(pool.ok, JSON.stringify(pool));
      const list = await callTool(client, 'list_pools', { merchantId: m.shopId });
      assert.ok(list.ok, JSON.stringify(list));
      assert.equal(list.output.pools.length, 1);
      assert.equal(list.output.pools[0].id, pool.output.id);
      assert.equal(list.output.pools[0].availableCount, 40);
    });

    test('create_tier saves the tier and its restrictions', async () => {
      const m = await h.merchant();
      const client = await open(m.apiKey);
      await assertCreateTierWithRestrictions((tool, input) => callTool(client, tool, input), m.shopId);
    });

    test('an unknown field is refused with unknown_field', async () => {
      const m = await h.merchant();
      const client = await open(m.apiKey);
      const r = await callTool(client, 'create_tier', {
        eventId: 'evt_x',
        poolId: 'pool_x',
        name: 'A',
        priceMinor: 1,
        colour: 'red',
      });
      assert.equal(r.ok, false);
      assert.equal(!r.ok && r.code, 'unknown_field');
      assert.deepEqual(!r.ok && r.error.details.fields, ['colour']);
    });

    test('a key without the required scope gets insufficient_scope', async () => {
      const m = await h.merchant(['merchant:write']);
      const client = await open(m.apiKey);
      const r = await callTool(client, 'list_pools', { merchantId: m.shopId });
      assert.equal(!r.ok && r.code, 'insufficient_scope');
    });

    test("another organization's shop answers not_found", async () => {
      const mine = await h.merchant();
      const theirs = await h.merchant();
      const client = await open(mine.apiKey);
      const r = await callTool(client, 'list_pools', { merchantId: theirs.shopId });
      assert.equal(!r.ok && r.code, 'not_found');
    });

    test('without a credential tools are listed but calls answer unauthenticated (over HTTP: 401 at once)', async () => {
      if (surface === 'mcp http') {
        // A protected resource: the client learns it must authorize (MCP authorization, test/oauth/).
        await assert.rejects(connect(h), (err: any) => /401|Unauthorized/i.test(String(err?.message ?? err)));
        return;
      }
      const client = await open();
      assert.ok((await client.listTools()).tools.length > 0);
      const r = await callTool(client, 'list_pools', { merchantId: 'shop_x' });
      assert.equal(!r.ok && r.code, 'unauthenticated');
    });

    test('an unknown tool is JSON-RPC -32602 Invalid params', async () => {
      const m = await h.merchant();
      await assert.rejects(callTool(await open(m.apiKey), 'no_such_tool', {}), (err: any) => {
        assert.equal(err.code, -32602);
        assert.match(err.message, /Unknown tool: no_such_tool/);
        return true;
      });
    });

    test('an idempotency key in _meta replays the stored outcome', async () => {
      const m = await h.merchant();
      const client = await open(m.apiKey);
      const args = { merchantId: m.shopId, capacity: 5 };
      const first = await callTool(client, 'create_pool', args, { idempotencyKey: 'k-1' });
      const again = await callTool(client, 'create_pool', args, { idempotencyKey: 'k-1' });
      assert.ok(first.ok && again.ok);
      assert.equal(again.output.id, first.output.id);
      assert.deepEqual([first.replayed, again.replayed], [false, true]);
      const other = await callTool(client, 'create_pool', { ...args, capacity: 6 }, { idempotencyKey: 'k-1' });
      assert.equal(!other.ok && other.code, 'idempotency_conflict');
    });
  });
}
