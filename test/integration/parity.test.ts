/**
 * Parity: every tool appears in OpenAPI, and on MCP and A2A to the callers who may call it, with the same input schema.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentCard } from '@a2a-js/sdk';
import { toolInputSchema } from '../../src/orchestrator/json-schema.ts';
import { withIntegerFormats } from '../../src/rest/openapi-bounds.ts';
import { protocolInputSchema } from '../../src/orchestrator/surface-keys.ts';
import { a2aClient } from '../support/a2a.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { mcpHttp, mcpInMemory } from '../support/mcp.ts';
import { restClient } from '../support/rest.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  await h?.close();
});

const names = TOOLS.map((t) => t.name).sort();

/** The input schema as OpenAPI describes it: path/query parameters plus the JSON body. */
function openApiInput(op: any): { properties: Record<string, unknown>; required: string[] } {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const p of op.parameters ?? []) {
    if (p.in === 'header') continue;
    properties[p.name] = p.schema;
    if (p.required) required.push(p.name);
  }
  const body = op.requestBody?.content['application/json'].schema;
  Object.assign(properties, body?.properties ?? {});
  required.push(...(body?.required ?? []));
  return { properties, required: required.sort() };
}

test('the OpenAPI document has every tool with the same input schema', async () => {
  const doc = (await restClient(h.url).get('/v1/openapi.json')).body;
  // Besides the tools' operations, the document has the AP2 refusal routes (tag ap2, operationId ap2_…).
  const all = Object.values(doc.paths as Record<string, Record<string, any>>).flatMap((i) => Object.values(i));
  const ops = all.filter((o) => !o.operationId.startsWith('ap2_'));
  assert.deepEqual(ops.map((o) => o.operationId as string).sort(), names);
  for (const tool of TOOLS) {
    const op = ops.find((o) => o.operationId === tool.name);
    // The document adds one thing to the tool's schema: each integer's format (int32 or int64, from its bounds).
    const schema = withIntegerFormats(toolInputSchema(tool)) as {
      properties: Record<string, unknown>;
      required?: string[];
    };
    const got = openApiInput(op);
    assert.deepEqual(got.properties, schema.properties, tool.name);
    assert.deepEqual(got.required, [...(schema.required ?? [])].sort(), tool.name);
  }
});

test('MCP tools/list (in-memory and HTTP) lists the caller’s tools with the registry input schema (plus idempotencyKey)', async () => {
  const m = await h.merchant();
  for (const connect of [mcpInMemory, mcpHttp]) {
    const client = await connect(h, m.apiKey);
    const { tools } = await client.listTools();
    // Which tools each kind of caller sees is test/protocols/listing.test.ts; here, that each is the registry's.
    assert.ok(tools.length > 0);
    for (const listed of tools) {
      const tool = TOOLS.find((t) => t.name === listed.name)!;
      assert.deepEqual(listed.inputSchema, protocolInputSchema(tool), tool.name);
      const { idempotencyKey: _key, ...own } = (listed.inputSchema.properties ?? {}) as Record<string, unknown>;
      assert.deepEqual(own, (toolInputSchema(tool) as any).properties ?? {}, tool.name);
      assert.equal(listed.annotations?.readOnlyHint, tool.annotations.readOnlyHint, tool.name);
    }
    await client.close();
  }
});

test('the A2A cards have one skill per tool the caller may call, with the same input schema', async () => {
  const card = (await restClient(h.url).get('/.well-known/agent-card.json')).body;
  for (const skill of card.skills) {
    const tool = TOOLS.find((t) => t.name === skill.id);
    assert.ok(tool, skill.id);
    assert.deepEqual(skill.tags, tool.annotations.readOnlyHint ? [tool.area, 'read-only'] : [tool.area]);
  }
  const m = await h.merchant();
  const extended = AgentCard.toJSON(await (await a2aClient(h, m.apiKey)).getAgentCard()) as any;
  const ext = extended.capabilities.extensions.find((e: any) => e.uri === 'urn:tessera:a2a:skill-schemas:v1');
  assert.ok(ext, 'the skill-schemas extension is on the extended card');
  for (const skill of extended.skills) {
    const tool = TOOLS.find((t) => t.name === skill.id)!;
    assert.deepEqual(ext.params.skills[tool.name].inputSchema, protocolInputSchema(tool), tool.name);
  }
});
