/**
 * What a strict client checks in the OpenAPI document (issue #36): every response string and array bounded, every
 * integer's format, the rate-limit headers declared and sent, real answers within their documented schemas, and
 * Spectral's OWASP ruleset finding only what docs/openapi.md lists.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { UNBOUNDED } from '../../src/rest/openapi-bounds.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { restClient, type RestResponse } from '../support/rest.ts';
import { key, must } from '../support/spine.ts';

// ajv-formats is CommonJS: its default export is the function itself.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const ROOT = join(import.meta.dirname, '..', '..');
const SPECTRAL = join(ROOT, 'node_modules', '.bin', 'spectral');
const RULESET = join(ROOT, '.spectral.yaml');

let h: Harness;
let doc: any;
let served: RestResponse;
before(async () => {
  h = await startHarness();
  served = await restClient(h.url).get('/v1/openapi.json');
  assert.equal(served.status, 200);
  doc = served.body;
});
after(async () => {
  await h?.close();
});

const operations = (): any[] =>
  Object.values(doc.paths as Record<string, Record<string, any>>).flatMap((item) => Object.values(item));

/** Whether UNBOUNDED names `field` of `operationId`'s answer, by its name or as `tool.field`. */
const listed = (operationId: string, field: string) =>
  Object.hasOwn(UNBOUNDED, field) || Object.hasOwn(UNBOUNDED, `${operationId}.${field}`);

/** `schema`'s strings without maxLength, enum or const and arrays without maxItems, named by property. */
function unbounded(schema: unknown, name: string, at: string): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const s = schema as Record<string, any>;
  const out: string[] = [];
  const open = s.enum === undefined && s.const === undefined && !listed(at.split(' ')[0]!, name);
  if (s.type === 'string' && s.maxLength === undefined && open) out.push(`${at} string ${name}`);
  if (s.type === 'array' && s.maxItems === undefined && open) out.push(`${at} array ${name}`);
  for (const [k, v] of Object.entries(s)) {
    if (k === 'examples' || k === 'example' || k === 'enum') continue;
    if (k === 'properties') for (const [p, sub] of Object.entries(v)) out.push(...unbounded(sub, p, at));
    else if (Array.isArray(v)) v.forEach((sub) => out.push(...unbounded(sub, name, at)));
    else if (typeof v === 'object') out.push(...unbounded(v, k === 'items' ? `${name}[]` : `${name}.${k}`, at));
  }
  return out;
}

test('every string and array a response carries is bounded; the lists that are not are named with their reason', () => {
  const found: string[] = [];
  for (const op of operations()) {
    for (const [status, res] of Object.entries(op.responses as Record<string, any>)) {
      found.push(...unbounded(res.content?.['application/json']?.schema, '', `${op.operationId} ${status}`));
      for (const [name, header] of Object.entries((res.headers ?? {}) as Record<string, any>))
        found.push(...unbounded(header.schema, name, `${op.operationId} ${status} header`));
    }
  }
  // A new field: give it a bound in its zod output schema, or a rule in src/rest/openapi-bounds.ts (FIELD_BOUNDS);
  // a list that truly grows without a cap goes to UNBOUNDED with its reason.
  assert.deepEqual(found, []);
  for (const reason of Object.values(UNBOUNDED)) assert.ok(reason.length > 10);
});

test('every integer in the document declares int32 or int64', () => {
  const missing: string[] = [];
  const visit = (node: unknown, path: string): void => {
    if (typeof node !== 'object' || node === null) return;
    const n = node as Record<string, unknown>;
    if (n.type === 'integer' && n.format !== 'int32' && n.format !== 'int64') missing.push(path);
    for (const [k, v] of Object.entries(n)) if (k !== 'example' && k !== 'examples') visit(v, `${path}.${k}`);
  };
  visit(doc, '$');
  assert.deepEqual(missing, []);
});

test('every answer declares RateLimit and RateLimit-Policy, a 429 Retry-After, and answers send them', async () => {
  for (const op of operations()) {
    for (const [status, res] of Object.entries(op.responses as Record<string, any>)) {
      assert.ok(res.headers?.RateLimit && res.headers['RateLimit-Policy'], `${op.operationId} ${status}`);
      if (status === '429') assert.ok(res.headers['Retry-After'], `${op.operationId} 429 Retry-After`);
    }
  }
  const declared = doc.paths['/v1/catalog/shops/{id}'].get.responses['200'].headers;
  const pattern = (name: string) => new RegExp(declared[name].schema.pattern);
  // Without a credential (charged to the address) and with one (charged to the caller), success and refusal alike.
  const m = await h.merchant();
  for (const res of [
    served,
    await restClient(h.url).get('/v1/catalog/shops/shop_0000000000'),
    await restClient(h.url, m.apiKey).get(`/v1/catalog/shops/${m.shopId}`),
    await restClient(h.url, m.apiKey).post('/v1/ticketing/quotes', { tierId: 'tier_0000000000', quantity: 1 }),
  ]) {
    assert.match(res.headers.get('ratelimit') ?? '', pattern('RateLimit'), String(res.status));
    assert.match(res.headers.get('ratelimit-policy') ?? '', pattern('RateLimit-Policy'), String(res.status));
  }
  const caller = await restClient(h.url, m.apiKey).get(`/v1/catalog/shops/${m.shopId}`);
  assert.match(caller.headers.get('ratelimit-policy')!, /^"caller";q=\d+;w=60$/);
});

/** Checks a real answer against the documented schema of its operation and status. */
function conforms(ajv: Ajv2020, operationId: string, res: RestResponse): void {
  const op = operations().find((o) => o.operationId === operationId);
  const schema = op.responses[String(res.status)]?.content['application/json'].schema;
  assert.ok(schema, `${operationId}: ${res.status} is documented`);
  assert.ok(res.status < 300, `${operationId}: ${res.status} ${JSON.stringify(res.body)}`);
  assert.ok(ajv.validate(schema, res.body), `${operationId}: ${ajv.errorsText()}`);
}

test('real answers, with names and titles at their longest, are within their documented schemas', async () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const m = await h.merchant();
  const api = restClient(h.url, m.apiKey);
  const shop = await api.post('/v1/integration/shops', { name: 'S'.repeat(200), currency: 'EUR', holdMinutes: 10 });
  conforms(ajv, 'create_shop', shop);
  const startsAt = new Date(h.clock.now().getTime() + 30 * 86_400_000).toISOString();
  const event = must(
    await api.post('/v1/integration/events', {
      merchantId: shop.body.id,
      title: 'T'.repeat(300),
      venue: 'V'.repeat(300),
      startsAt,
    }),
    201,
  );
  const pool = must(
    await api.post('/v1/integration/pools', { merchantId: shop.body.id, eventId: event.id, capacity: 5 }),
    201,
  );
  const tier = await api.post('/v1/integration/tiers', {
    eventId: event.id,
    poolId: pool.id,
    name: 'N'.repeat(200),
    priceMinor: 5000,
  });
  conforms(ajv, 'create_tier', tier);
  conforms(ajv, 'get_event', await api.get(`/v1/catalog/events/${event.id}`));
  conforms(ajv, 'list_events', await api.get(`/v1/catalog/shops/${shop.body.id}/events`));
  conforms(ajv, 'list_pools', await api.get(`/v1/integration/pools?merchantId=${shop.body.id}`));
  const quote = await api.post('/v1/ticketing/quotes', { tierId: tier.body.id, quantity: 2 });
  conforms(ajv, 'quote', quote);
  const held = await api.post('/v1/ticketing/reservations', { quoteId: quote.body.quoteId }, key());
  conforms(ajv, 'reserve', held);
  const id = held.body.reservation?.id ?? held.body.id;
  const paid = await api.post(`/v1/ticketing/reservations/${id}/confirm`, { paymentMethod: 'pm_sandbox_visa' }, key());
  conforms(ajv, 'confirm', paid);
  const orderId = paid.body.order.id;
  const refund = await api.post(
    `/v1/ticketing/orders/${orderId}/refunds`,
    { reason: 'R'.repeat(500), returnToPool: false },
    key(),
  );
  conforms(ajv, 'refund_order', refund);
  conforms(ajv, 'get_order', await api.get(`/v1/ticketing/orders/${orderId}`));
});

test('Spectral’s OWASP ruleset finds only what docs/openapi.md lists: CORS, public writes, UNBOUNDED', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-spectral-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc));
  // The repository's .spectral.yaml (the OWASP ruleset), as `npx spectral lint` reads it.
  const r = spawnSync(process.execPath, [SPECTRAL, 'lint', join(dir, 'openapi.json'), '-r', RULESET, '-f', 'json'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, NO_COLOR: '1', SCARF_ANALYTICS: 'false' },
  });
  assert.ok(r.stdout.includes('['), r.stderr);
  const findings = JSON.parse(r.stdout.slice(r.stdout.indexOf('['))) as {
    code: string;
    severity: number;
    path: string[];
  }[];
  const errors = findings.filter((f) => f.severity === 0);
  const rules = new Set(errors.map((f) => f.code));
  t.diagnostic(
    `Spectral OWASP: ${errors.length} errors (${[...rules].join(', ')}), ${findings.length - errors.length} others`,
  );
  const documented = [
    'owasp:api8:2023-define-cors-origin',
    'owasp:api2:2023-write-restricted',
    // The test server listens on http://127.0.0.1; a deployment's PUBLIC_URL is https.
    ...(doc.servers[0].url.startsWith('http:') ? ['owasp:api8:2023-no-server-http'] : []),
  ];
  // Strings and arrays left without a bound are exactly the UNBOUNDED fields.
  const limits = ['owasp:api4:2023-string-limit', 'owasp:api4:2023-array-limit'];
  const operationOf = (f: { path: string[] }) => doc.paths[f.path[1]!]?.[f.path[2]!]?.operationId ?? '';
  const unexpected = errors.filter(
    (f) => !documented.includes(f.code) && !(limits.includes(f.code) && listed(operationOf(f), f.path.at(-1) ?? '')),
  );
  assert.deepEqual(
    unexpected.map((f) => `${f.code} ${f.path.join('.')}`),
    [],
  );
});

test('an operation an API key needs a scope for documents 403 insufficient_scope, and a key without it gets it', async () => {
  const missing = TOOLS.filter(
    (tool) => !tool.auth.public && tool.auth.principals.includes('api_key') && Boolean(tool.auth.scopes?.length),
  )
    .map((tool) => doc.paths[tool.http.path][tool.http.method.toLowerCase()])
    .filter((op) => !/`insufficient_scope`/.test(op.responses['403']?.description ?? ''))
    .map((op) => op.operationId);
  assert.deepEqual(missing, []);
  // update_event needs merchant:write and does not name the code itself: a read-only key is told so.
  const m = await h.merchant(['merchant:read']);
  const res = await restClient(h.url, m.apiKey).patch('/v1/integration/events/evt_00000000000000000000000000', {
    title: 'x',
  });
  assert.deepEqual([res.status, res.body.code], [403, 'insufficient_scope']);
});
