/**
 * What an LLM reads: the agent's MCP tools/list within 12,000 tokens (o200k_base, gpt-tokenizer), and every listed
 * schema portable across hosts (0 findings from the MCP inspector's portability check, run by the real CLI and by the
 * same rules in process over every kind of caller's list).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { countTokens } from 'gpt-tokenizer';
import { mcpHttp } from '../support/mcp.ts';
import { createAgent, merchantShop, newEmail, signIn, startWorld, type World } from '../support/buyers.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const INSPECTOR = join(ROOT, 'node_modules', '.bin', 'mcp-inspector');
const PATH = `${dirname(process.execPath)}:${process.env.PATH ?? ''}`;
const AGENT_TOKEN_BUDGET = 12_000;

let w: World;
before(async () => {
  w = await startWorld();
});
after(async () => {
  await w?.close();
});

/** The tools/list result as `token`'s MCP client receives it over Streamable HTTP, and its JSON text. */
async function toolsList(token: string): Promise<{ tools: any[]; json: string }> {
  const client = await mcpHttp(w.h, token);
  try {
    const result = await client.listTools();
    return { tools: result.tools, json: JSON.stringify({ tools: result.tools }) };
  } finally {
    await client.close();
  }
}

async function tokens() {
  const m = await merchantShop(w.h, { scopes: ['merchant:read', 'merchant:write', 'merchant:admin'] });
  const email = newEmail();
  const full = await signIn(w, email, m.shopId);
  const agent = (await createAgent(w, full, email)).token;
  const owner = await w.h.app.authenticator.sign(
    { typ: 'console', sub: m.ownerId, org: m.organizationId, role: 'owner' } as never,
    3600,
  );
  return { agent, merchantKey: m.apiKey, buyer: full, owner, staff: await w.h.staffToken() };
}

test("the agent's tools/list is within 12,000 tokens; the merchant key's is reported", async (t) => {
  const who = await tokens();
  const agent = await toolsList(who.agent);
  const merchant = await toolsList(who.merchantKey);
  const agentTokens = countTokens(agent.json);
  const merchantTokens = countTokens(merchant.json);
  const kb = (s: string) => (Buffer.byteLength(s) / 1024).toFixed(1);
  t.diagnostic(`agent: ${agent.tools.length} tools, ${kb(agent.json)} KB, ${agentTokens} tokens`);
  t.diagnostic(`merchant key: ${merchant.tools.length} tools, ${kb(merchant.json)} KB, ${merchantTokens} tokens`);
  assert.ok(agentTokens <= AGENT_TOKEN_BUDGET, `the agent's tools/list is ${agentTokens} tokens`);
  assert.ok(merchantTokens > 0);
  // Descriptions are short and say nothing of REST headers; every input field of an agent's tool is described; every
  // input schema carries one example the tool accepts.
  for (const tool of [...agent.tools, ...merchant.tools]) {
    assert.ok(tool.description.length <= 400, `${tool.name}: description of ${tool.description.length} characters`);
    assert.doesNotMatch(tool.description, /Idempotency-Key/, tool.name);
  }
  for (const tool of agent.tools) {
    for (const [name, field] of Object.entries(tool.inputSchema.properties ?? {})) {
      assert.ok((field as { description?: string }).description, `${tool.name}: ${name} is described`);
    }
  }
  for (const tool of [...agent.tools, ...merchant.tools]) {
    assert.equal(tool.inputSchema.examples?.length, 1, `${tool.name}: one input example`);
    const { idempotencyKey: _key, ...example } = tool.inputSchema.examples[0];
    assert.ok(
      w.h.app.orchestrator.get(tool.name)!.input.safeParse(example).success,
      `${tool.name}: its example is accepted`,
    );
  }
});

/**
 * The inspector's portability rules (its core/json/schemaLint): type arrays, schemas that constrain nothing, bare
 * booleans, remote $refs.
 */
function findings(schema: unknown, path = '', keyword?: string): string[] {
  if (typeof schema === 'boolean') {
    return ['additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems'].includes(
      keyword ?? '',
    )
      ? []
      : [`${path}: bare ${schema}`];
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [];
  const node = schema as Record<string, unknown>;
  const out: string[] = [];
  if (Array.isArray(node.type)) out.push(`${path}: type array ${JSON.stringify(node.type)}`);
  if (typeof node.$ref === 'string' && !node.$ref.startsWith('#')) out.push(`${path}: remote $ref`);
  const annotations = new Set([
    'description',
    'title',
    'examples',
    'default',
    'deprecated',
    'readOnly',
    'writeOnly',
    '$comment',
    '$id',
    '$schema',
  ]);
  if (keyword !== 'not' && Object.keys(node).every((k) => annotations.has(k))) out.push(`${path}: constrains nothing`);
  for (const key of ['properties', 'patternProperties', '$defs', 'dependentSchemas']) {
    for (const [name, sub] of Object.entries((node[key] ?? {}) as Record<string, unknown>))
      out.push(...findings(sub, `${path}.${key}.${name}`, key));
  }
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) {
    ((node[key] ?? []) as unknown[]).forEach((sub, i) => out.push(...findings(sub, `${path}.${key}[${i}]`, key)));
  }
  for (const key of [
    'items',
    'not',
    'contains',
    'propertyNames',
    'if',
    'then',
    'else',
    'additionalProperties',
    'unevaluatedProperties',
  ]) {
    if (key in node) out.push(...findings(node[key], `${path}.${key}`, key));
  }
  return out;
}

/**
 * Runs the real inspector CLI's tools/list with --strict over Streamable HTTP as `token`; resolves its exit code and
 * stderr.
 */
function inspectorStrict(token: string): Promise<{ code: number | null; stderr: string }> {
  const args = [
    '--cli',
    '--connect-timeout',
    '0',
    '--transport',
    'http',
    '--server-url',
    `${w.h.url}/mcp`,
    '--stored-auth-only',
  ];
  args.push('--method', 'tools/list', '--strict', '--header', `Authorization: Bearer ${token}`);
  return new Promise((resolve, reject) => {
    const child = spawn(INSPECTOR, args, {
      cwd: ROOT,
      env: { ...process.env, PATH },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

test('every listed tool schema is portable: 0 inspector findings for every kind of caller', async () => {
  const who = await tokens();
  const all = new Map<string, any>();
  for (const token of Object.values(who)) for (const tool of (await toolsList(token)).tools) all.set(tool.name, tool);
  const problems = [...all.values()].flatMap((tool) => [
    ...findings(tool.inputSchema).map((f) => `${tool.name} inputSchema${f}`),
    ...findings(tool.outputSchema).map((f) => `${tool.name} outputSchema${f}`),
  ]);
  assert.deepEqual(problems, []);
  // Every caller's list: descriptions within 400 characters.
  const long = [...all.values()].filter((tool) => tool.description.length > 400).map((tool) => tool.name);
  assert.deepEqual(long, []);
  // No date-time carries zod's ~500-character regex: the format names it.
  assert.doesNotMatch(
    JSON.stringify([...all.values()]),
    /"pattern":"[^"]{200,}"/,
    'a regex of 200 characters or more is listed',
  );
  for (const token of [who.merchantKey, who.agent]) {
    const run = await inspectorStrict(token);
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /Schema portability|warning/i, run.stderr);
  }
});
