/** Parity: every tool appears on every surface with the same input schema; a missing one fails here. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { toolInputSchema } from '../../src/orchestrator/json-schema.ts';
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
  const ops = Object.values(doc.paths as Record<string, Record<string, any>>).flatMap((i) => Object.values(i));
  assert.deepEqual(ops.map((o) => o.operationId).sort(), names);
  for (const tool of TOOLS) {
    const op = ops.find((o) => o.operationId === tool.name);
    const schema = toolInputSchema(tool) as { properties: Record<string, unknown>; required?: string[] };
    const got = openApiInput(op);
    assert.deepEqual(got.properties, schema.properties, tool.name);
    assert.deepEqual(got.required, [...(schema.required ?? [])].sort(), tool.name);
  }
});

test('MCP tools/list (in-memory and HTTP) has every tool with the same input schema', async () => {
  for (const connect of [mcpInMemory, mcpHttp]) {
    const client = await connect(h);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), names);
    for (const tool of TOOLS) {
      const listed = tools.find((t) => t.name === tool.name)!;
      assert.deepEqual(listed.inputSchema, toolInputSchema(tool), tool.name);
      assert.equal(listed.annotations?.readOnlyHint, tool.annotations.readOnlyHint, tool.name);
    }
    await client.close();
  }
});

test('the A2A agent card has one skill per tool with the same input schema', async () => {
  const card = (await restClient(h.url).get('/.well-known/agent-card.json')).body;
  assert.deepEqual(card.skills.map((s: any) => s.id).sort(), names);
  const ext = card.capabilities.extensions.find((e: any) => e.uri === 'urn:tessera:a2a:skill-schemas:v1');
  assert.ok(ext, 'the skill-schemas extension is on the card');
  for (const tool of TOOLS) {
    assert.deepEqual(ext.params.skills[tool.name].inputSchema, toolInputSchema(tool), tool.name);
    const skill = card.skills.find((s: any) => s.id === tool.name);
    assert.deepEqual(skill.tags, [tool.area]);
  }
});
