import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ERRORS } from '../../src/kernel/errors.ts';
import { toolInputSchema } from '../../src/orchestrator/json-schema.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { AREAS } from '../../src/orchestrator/tool.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import { verifies } from '../support/requirements.ts';

let h: Harness;
let doc: any;
before(async () => {
  h = await startHarness();
  const res = await restClient(h.url).get('/v1/openapi.json');
  assert.equal(res.status, 200);
  doc = res.body;
});
after(async () => {
  await h?.close();
});

function operations(): any[] {
  return Object.values(doc.paths as Record<string, Record<string, any>>).flatMap((item) => Object.values(item));
}

test(`${verifies('SPEC-9-openapi-version', 'SPEC-5.1-bearer-default')}the OpenAPI document is 3.1.0, API version 1.0.0, with bearerAuth (HTTP bearer, JWT) as default security`, () => {
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.version, '1.0.0');
  assert.deepEqual(doc.components.securitySchemes.bearerAuth, {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: doc.components.securitySchemes.bearerAuth.description,
  });
  assert.deepEqual(doc.security, [{ bearerAuth: [] }]);
  assert.equal(doc.servers[0].url, h.url);
});

test(`${verifies('CONTRACT-openapi-document', 'SPEC-1-areas')}every tool is one operation: operationId = tool name, tag = area, path and method from the definition`, () => {
  const ops = operations().filter((op) => !op.operationId.startsWith('ap2_'));
  assert.equal(ops.length, TOOLS.length);
  for (const tool of TOOLS) {
    const op = doc.paths[tool.http.path]?.[tool.http.method.toLowerCase()];
    assert.ok(op, `${tool.name} missing at ${tool.http.method} ${tool.http.path}`);
    assert.equal(op.operationId, tool.name);
    assert.deepEqual(op.tags, [tool.area]);
    assert.ok(
      doc.tags.some((t: any) => t.name === tool.area),
      `tag ${tool.area} declared`,
    );
  }
});

test(`${verifies('CONTRACT-error-shape')}each operation documents its declared error codes with the shared error schema`, () => {
  for (const tool of TOOLS) {
    const op = doc.paths[tool.http.path][tool.http.method.toLowerCase()];
    for (const code of tool.errors) {
      const res = op.responses[String(ERRORS[code].status)];
      assert.ok(res, `${tool.name}: no ${ERRORS[code].status} response for ${code}`);
      assert.match(res.description, new RegExp(`\`${code}\``));
      assert.equal(res.content['application/json'].schema.$ref, '#/components/schemas/Error');
    }
  }
});

test('request parameters and bodies carry the tool input schema, closed to unknown fields', () => {
  for (const tool of TOOLS) {
    const op = doc.paths[tool.http.path][tool.http.method.toLowerCase()];
    const input = toolInputSchema(tool) as { properties: Record<string, unknown> };
    const documented = new Set<string>([
      ...op.parameters.filter((p: any) => p.in !== 'header').map((p: any) => p.name),
      ...Object.keys(op.requestBody?.content['application/json'].schema.properties ?? {}),
    ]);
    assert.deepEqual([...documented].sort(), Object.keys(input.properties).sort(), tool.name);
    if (op.requestBody) assert.equal(op.requestBody.content['application/json'].schema.additionalProperties, false);
  }
});

test('a real OpenAPI linter (Redocly, recommended rules) passes on the document', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-openapi-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(doc));
  const r = spawnSync(process.execPath, ['node_modules/.bin/redocly', 'lint', file, '--format', 'stylish'], {
    encoding: 'utf8',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    timeout: 60_000,
  });
  assert.equal(r.status, 0, `redocly lint failed:\n${r.stdout}\n${r.stderr}`);
  assert.doesNotMatch(r.stdout + r.stderr, /\berror\b/i);
});

test('the API reference page is served from local assets', async () => {
  const api = restClient(h.url);
  const page = await api.get('/docs');
  assert.equal(page.status, 200);
  assert.match(String(page.body), /swagger-ui-bundle\.js/);
  assert.doesNotMatch(String(page.body), /https?:\/\//, 'no CDN or remote asset');
  const js = await fetch(new URL('/docs/assets/swagger-ui-bundle.js', h.url));
  assert.equal(js.status, 200);
  assert.ok((await js.arrayBuffer()).byteLength > 100_000);
});

test('every area is a tag, the AP2 routes are documented, and every operation has a request example the tool accepts', () => {
  assert.deepEqual(doc.tags.map((t: any) => t.name).sort(), [...AREAS].sort());
  for (const path of ['/v1/ap2', '/v1/ap2/{rest}']) {
    const op = doc.paths[path]?.post;
    assert.ok(op, path);
    assert.deepEqual(op.tags, ['ap2']);
    assert.match(op.responses['422'].description, /`ap2_unsupported`/);
  }
  for (const tool of TOOLS) {
    const op = doc.paths[tool.http.path][tool.http.method.toLowerCase()];
    const example: Record<string, unknown> = {};
    for (const p of op.parameters.filter((x: any) => x.in === 'path' || x.in === 'query')) {
      if (p.required) assert.ok(p.example !== undefined, `${tool.name}: ${p.name} has an example`);
      if (p.example !== undefined) example[p.name] = p.example;
    }
    if (op.requestBody) {
      const body = op.requestBody.content['application/json'].example;
      assert.ok(body && typeof body === 'object', `${tool.name}: a request body example`);
      Object.assign(example, body);
    }
    assert.ok(tool.input.safeParse(example).success, `${tool.name}: its example is a valid input`);
  }
  // The 429 answers say how long to wait, as a bounded header.
  for (const op of operations()) {
    const limited = op.responses['429'];
    if (limited)
      assert.deepEqual(
        limited.headers['Retry-After'].schema,
        { type: 'integer', minimum: 1, maximum: 86_400, format: 'int32' },
        op.operationId,
      );
  }
});

/** Paths (in `schema`) of strings without maxLength, enum or const, and arrays without maxItems. */
function unbounded(schema: unknown, path: string): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const s = schema as Record<string, any>;
  const out: string[] = [];
  if (s.type === 'string' && s.maxLength === undefined && s.enum === undefined && s.const === undefined) out.push(path);
  if (s.type === 'array' && s.maxItems === undefined) out.push(path);
  for (const [key, value] of Object.entries(s)) {
    if (key === 'examples' || key === 'example' || key === 'enum') continue;
    if (Array.isArray(value)) value.forEach((v, i) => out.push(...unbounded(v, `${path}.${key}[${i}]`)));
    else if (typeof value === 'object') out.push(...unbounded(value, `${path}.${key}`));
  }
  return out;
}

test('every string and array a request sends is bounded (maxLength, maxItems), and the input schemas enforce it', () => {
  const found: string[] = [];
  for (const op of operations()) {
    for (const p of op.parameters ?? []) found.push(...unbounded(p.schema, `${op.operationId} ${p.in} ${p.name}`));
    found.push(...unbounded(op.requestBody?.content['application/json'].schema, `${op.operationId} body`));
  }
  assert.deepEqual(found, []);
  // Enforced, not only documented: an id one character past its bound is refused.
  const quote = TOOLS.find((t) => t.name === 'quote')!;
  assert.equal(quote.input.safeParse({ tierId: `tier_${'a'.repeat(96)}`, quantity: 1 }).success, false);
});
