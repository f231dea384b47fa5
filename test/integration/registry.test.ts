/** The registry's own rules: names, strict inputs, plain object outputs, declared errors, no transport imports. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ERRORS } from '../../src/kernel/errors.ts';
import { fieldsOf } from '../../src/kernel/secret-fields.ts';
import { toolInputSchema, toolOutputSchema } from '../../src/orchestrator/json-schema.ts';
import { AREAS } from '../../src/orchestrator/tool.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { verifies } from '../support/requirements.ts';

/** Every object schema reachable in `schema` (properties, items, anyOf, $defs...). */
function objects(schema: unknown, out: Record<string, unknown>[] = []): Record<string, unknown>[] {
  if (!schema || typeof schema !== 'object') return out;
  const s = schema as Record<string, unknown>;
  if (s.type === 'object' || s.properties) out.push(s);
  for (const v of Object.values(s)) {
    if (Array.isArray(v)) v.forEach((x) => objects(x, out));
    else if (v && typeof v === 'object') objects(v, out);
  }
  return out;
}

test(`${verifies('SPEC-1-areas', 'SPEC-9-v1-prefix')}tool names are unique snake_case verbs with an area, a title and a description for models`, () => {
  assert.equal(new Set(TOOLS.map((t) => t.name)).size, TOOLS.length);
  for (const t of TOOLS) {
    assert.match(t.name, /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/, t.name);
    assert.ok((AREAS as readonly string[]).includes(t.area), `${t.name}: area ${t.area}`);
    assert.ok(t.title.length > 3, t.name);
    assert.ok(t.description.length >= 40, `${t.name}: describe it for the model that reads it`);
    assert.ok(t.http.path.startsWith('/v1/'), `${t.name}: REST lives under /v1`);
  }
});

test(`${verifies('CONTRACT-unknown-field')}every input object (nested too) refuses unknown fields, and every output is a plain object`, () => {
  for (const t of TOOLS) {
    const input = toolInputSchema(t);
    assert.equal(input.type, 'object', t.name);
    for (const o of objects(input)) {
      // Open only where a protocol says so, and marked with the reason (e.g. the ACP MCP binding's `meta`).
      if (typeof o['x-open-object'] === 'string') continue;
      assert.equal(o.additionalProperties, false, `${t.name}: an input object accepts unknown fields`);
    }
    const output = toolOutputSchema(t);
    assert.equal(output.type, 'object', `${t.name}: the top-level output must be an object`);
    assert.equal(output.anyOf, undefined, `${t.name}: no union at the top level`);
  }
});

/**
 * Every property of an input schema, at every depth (nested objects, array items, union branches), as `path` and
 * whether it is described: on the property itself, or on the shared schema its `$ref` names.
 */
function undescribed(root: Record<string, unknown>): string[] {
  const out: string[] = [];
  const resolve = (s: Record<string, unknown>): Record<string, unknown> => {
    const ref = s.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#/')) return s;
    let node: unknown = root;
    for (const part of ref.slice(2).split('/')) node = (node as Record<string, unknown>)?.[part];
    return (node ?? {}) as Record<string, unknown>;
  };
  const described = (s: Record<string, unknown>): boolean =>
    (typeof s.description === 'string' && s.description.trim() !== '') ||
    (typeof s.$ref === 'string' && s.$ref.startsWith('#/') && described(resolve(s)));
  const seen = new Set<unknown>();
  const walk = (schema: unknown, path: string): void => {
    if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return;
    const s = resolve(schema as Record<string, unknown>);
    if (seen.has(s)) return;
    seen.add(s);
    for (const [name, sub] of Object.entries((s.properties ?? {}) as Record<string, Record<string, unknown>>)) {
      const at = path ? `${path}.${name}` : name;
      if (!described(sub)) out.push(at);
      walk(sub, at);
    }
    if (s.items) walk(s.items, `${path}[]`);
    for (const key of ['anyOf', 'oneOf', 'allOf']) {
      ((s[key] ?? []) as unknown[]).forEach((branch) => walk(branch, path));
    }
    if (s.additionalProperties && typeof s.additionalProperties === 'object') walk(s.additionalProperties, `${path}{}`);
    seen.delete(s);
  };
  walk(root, '');
  return out;
}

test('every input field of every tool, at every depth, is described for the model that reads it', () => {
  const missing = TOOLS.flatMap((t) => undescribed(toolInputSchema(t)).map((path) => `${t.name}:${path}`));
  assert.deepEqual(missing, [], `${missing.length} input fields have no description:\n${missing.join('\n')}`);
});

test('declared error codes exist in the closed table', () => {
  for (const t of TOOLS) for (const code of t.errors) assert.ok(code in ERRORS, `${t.name}: ${code}`);
});

test('REST routes are unique per method and path', () => {
  const routes = TOOLS.map((t) => `${t.http.method} ${t.http.path.replace(/\{\w+\}/g, '{}')}`);
  assert.equal(new Set(routes).size, routes.length);
});

test('tools and the orchestrator know no transport', () => {
  const root = join(import.meta.dirname, '..', '..', 'src');
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)]));
  for (const file of [...files(join(root, 'tools')), ...files(join(root, 'orchestrator'))]) {
    const text = readFileSync(file, 'utf8');
    assert.doesNotMatch(text, /from ['"](koa|@koa\/|@modelcontextprotocol\/|@a2a-js\/)/, file);
  }
});

/** Field names that look like a credential, a code or card data. */
const LOOKS_SECRET = /secret|passw|token|code|api_?key|[a-z]Key$|^key$|number|cvc|cvv|cryptogram|credential|otp|^pin$/i;
/** Fields whose names look secret but are not (matched against `<tool> <io>:<path>`), each with why. */
const NOT_SECRET: [RegExp, string][] = [
  [
    /(^|\/|:)(tokenPrefix|tokenType|failureCode|reason_code|card_number_type|idempotency_key|publishableKey)$/,
    'a label, an error code or a public key',
  ],
  [/(^|\/|:)(phone_number|postal_code)$/, 'personal data, not a credential'],
  [/^verify_signed_mandate output:mandate\/credentialRef$/, 'names the key that signed the mandate'],
  [
    / output:(.*\/)?tickets?\/(\*\/)?(code|signedCode)$/,
    'a ticket admission code: kept with its order and shown again by get_order and list_my_tickets',
  ],
  [/^(check_in input:code|upload_scans input:scans\/\*\/code)$/, 'a scanned ticket code, as above'],
  [/ output:messages\/\*\/code$/, 'an ACP message code (out_of_stock, …)'],
  [
    /^(configure_payment_provider|list_payment_providers) output:(providers\/\*\/)?(secretKey|webhookSecret)$/,
    'the last four characters, and the word "set"',
  ],
  [/ output:(agent\/|agents\/\*\/)?credential$/, 'the kind of agent credential (issued or key)'],
  [/^remove_team_member output:revokedApiKeyIds$/, 'the ids of the keys revoked, not the keys'],
  [/_checkout output:ucp\/payment_handlers\/\*\/\*\/config\/tokenize_url$/, 'the public URL of the card form'],
  [
    /(^|\/|:)(discountCode|discountCodeId)$|^(create|update|list|get)_discount_codes? (in|out)put:(codes\/\*\/)?code$/,
    'a discount code: a shared marketing code the merchant prints and lists, bounded by its own limits; not a credential',
  ],
  [
    /_checkout(_session)? (in|out)put:(payload\/|checkout\/)?discounts\/(codes|(applied|rejected)\/\*\/code)$/,
    'discount codes in ACP and UCP sessions, as above',
  ],
  [
    /^(get_invoice|list_invoices) output:(documents|invoices)\/\*\/number$/,
    'an invoice number, printed on the invoice',
  ],
];

test('every field that looks like a secret is marked secret (so kept copies redact it) or is known not to be one', () => {
  const unmarked: string[] = [];
  for (const t of TOOLS) {
    for (const io of ['input', 'output'] as const) {
      const fields = fieldsOf(t[io], io);
      const paths = fields.map((f) => f.path.join('/'));
      for (const f of fields) {
        const path = f.path.join('/');
        if (paths.some((p) => p.startsWith(`${path}/`))) continue; // an object: its own fields are checked
        const name = f.path[f.path.length - 1] ?? '';
        const where = `${t.name} ${io}:${path}`;
        if (f.secret || !LOOKS_SECRET.test(name) || NOT_SECRET.some(([re]) => re.test(where))) continue;
        unmarked.push(where);
      }
    }
  }
  assert.deepEqual(
    unmarked,
    [],
    'wrap each in secret(...) from src/kernel/secret-fields.ts, or add it to NOT_SECRET with why',
  );
});
