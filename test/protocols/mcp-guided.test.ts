/**
 * The guided flow an LLM in an MCP host gets: server instructions, the `buy_tickets` prompt and tool descriptions that
 * say what to call next; an agent following them buys within its permission. Also records the size of its tool list.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mcpHttp, mcpInMemory, callTool } from '../support/mcp.ts';
import { buyerWithAgent, merchantShop, startWorld, type World } from '../support/buyers.ts';
import { assertInvariant } from '../support/invariant.ts';

let w: World;
before(async () => {
  w = await startWorld();
});
after(async () => {
  await w?.close();
});

test('an agent gets instructions, the buy_tickets prompt and a compact tool list, and buys by following them', async (t) => {
  const shop = await merchantShop(w.h, { priceMinor: 4000, capacity: 5 });
  const agent = await buyerWithAgent(w, shop);
  const client = await mcpHttp(w.h, agent.agentToken);
  try {
    const instructions = client.getInstructions() ?? '';
    assert.match(instructions, /quote \{tierId, quantity\} → reserve \{quoteId\} → confirm \{id\}/);
    assert.match(instructions, /safe to retry/);
    const { tools } = await client.listTools();
    // What a host puts in the model's context: name, description and input schema (output schemas validate results).
    const bytes = Buffer.byteLength(JSON.stringify({ tools }));
    const modelFacing = Buffer.byteLength(
      JSON.stringify(tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }))),
    );
    t.diagnostic(
      `an agent's tools/list: ${tools.length} tools, ${bytes} bytes of JSON; name + description + inputSchema: ${modelFacing} bytes`,
    );
    assert.ok(modelFacing < 48 * 1024, `an agent's tool list is ${modelFacing} bytes for the model`);
    for (const name of ['list_events', 'get_event', 'quote', 'reserve']) {
      assert.match(tools.find((x) => x.name === name)!.description ?? '', /Next: `/, name);
    }
    const { prompts } = await client.listPrompts();
    assert.deepEqual(
      prompts.map((p) => p.name),
      ['buy_tickets'],
    );
    const prompt = await client.getPrompt({ name: 'buy_tickets', arguments: { eventId: shop.eventId, quantity: '2' } });
    const text = prompt.messages[0]!.content.type === 'text' ? prompt.messages[0]!.content.text : '';
    assert.match(text, new RegExp(`get_event \\{"id": "${shop.eventId}"\\}`));
    assert.match(text, /quote \{"tierId": "<tierId>", "quantity": 2\}/);
    await assert.rejects(
      client.getPrompt({ name: 'buy_tickets', arguments: { quantity: 'lots' } }),
      (err: any) => err.code === -32602,
    );

    // Following the prompt, arguments only.
    const event = await callTool(client, 'get_event', { id: shop.eventId });
    assert.ok(event.ok, JSON.stringify(event));
    const tierId = event.output.tiers[0].id;
    const q = await callTool(client, 'quote', { tierId, quantity: 2 });
    assert.ok(q.ok, JSON.stringify(q));
    const r = await callTool(client, 'reserve', { quoteId: q.output.quoteId });
    assert.ok(r.ok, JSON.stringify(r));
    const c = await callTool(client, 'confirm', { id: r.output.reservation.id });
    assert.ok(c.ok, JSON.stringify(c));
    assert.equal(c.output.order.tickets.length, 2);
    const again = await callTool(client, 'confirm', { id: r.output.reservation.id });
    assert.ok(again.ok && again.output.payment.id === c.output.payment.id);
    const counts = await assertInvariant(w.h.db, shop.poolId);
    assert.deepEqual([counts.held, counts.sold], [0, 2]);
  } finally {
    await client.close();
  }
});

test('a caller that may not buy is offered no prompt; the instructions are the same for every caller', async () => {
  const anonymous = await mcpInMemory(w.h);
  try {
    assert.deepEqual((await anonymous.listPrompts()).prompts, []);
    await assert.rejects(anonymous.getPrompt({ name: 'buy_tickets' }), (err: any) => err.code === -32602);
    assert.match(anonymous.getInstructions() ?? '', /tools\/list shows only the tools your credential may call/);
  } finally {
    await anonymous.close();
  }
});
