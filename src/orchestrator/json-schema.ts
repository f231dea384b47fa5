/** The one zod → JSON Schema converter: OpenAPI, MCP tool schemas and A2A skills all use it. */
import { z } from 'zod';
import type { AnyTool } from './tool.ts';

export type JsonSchema = Record<string, unknown>;

const cache = new WeakMap<z.ZodType, { input?: JsonSchema; output?: JsonSchema }>();

/** Keywords whose value is one subschema, an array of them, or a map of them (the positions `portable` visits). */
const ONE = [
  'items',
  'not',
  'contains',
  'propertyNames',
  'additionalProperties',
  'unevaluatedProperties',
  'if',
  'then',
  'else',
];
const MANY = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const MAP = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];
/** Keywords that say nothing about the value: a schema with only these accepts anything. */
const ANNOTATIONS = new Set([
  'description',
  'title',
  'examples',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$comment',
]);

/**
 * Rewrites a schema so that every host reads it the same (the MCP inspector's portability rules): a `type` array
 * becomes `anyOf` branches of one type each; a `format` stands alone (zod adds a regex of ~500 characters to each
 * date-time, which the format already names; zod still enforces it); a free-form `additionalProperties: {}` is
 * `true`; and a schema that constrains nothing (`z.unknown()`) declares what a JSON value may be.
 */
function portable(node: unknown, keyword?: string): unknown {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return node;
  const src = node as JsonSchema;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(src)) {
    if (ONE.includes(k)) out[k] = portable(v, k);
    else if (MANY.includes(k) && Array.isArray(v)) out[k] = v.map((s) => portable(s, k));
    else if (MAP.includes(k) && typeof v === 'object' && v !== null) {
      out[k] = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, portable(s, k)]));
    } else out[k] = v;
  }
  if (typeof out.format === 'string') delete out.pattern;
  const keys = Object.keys(out);
  if (keyword !== 'not' && keys.every((k) => ANNOTATIONS.has(k))) {
    if (keyword === 'additionalProperties' || keyword === 'unevaluatedProperties') return true;
    const { description, ...rest } = out;
    const anyJson = ['string', 'number', 'boolean', 'object', 'array', 'null'].map((type) => ({ type }));
    return { ...(description !== undefined && { description }), ...rest, anyOf: anyJson };
  }
  if (Array.isArray(out.type)) {
    const { type, description, ...constraints } = out;
    // The constraints (format, bounds, enum of a nullable enum...) belong to the branch of their own type.
    const branches = (type as string[]).map((t) => (t === 'null' ? { type: 'null' } : { type: t, ...constraints }));
    return { ...(description !== undefined && { description }), anyOf: branches };
  }
  return out;
}

/**
 * JSON Schema (draft 2020-12, without the `$schema` key) of a zod schema, as input or output, portable across hosts.
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  let entry = cache.get(schema);
  if (!entry) {
    entry = {};
    cache.set(schema, entry);
  }
  const hit = entry[io];
  if (hit) return hit;
  const raw = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  const { $schema: _drop, ...rest } = portable(raw) as JsonSchema;
  entry[io] = rest;
  return rest;
}

/** The prefix of an id field whose schema does not name it. */
const ID_PREFIXES: Record<string, string> = {
  merchantId: 'shop',
  eventId: 'evt',
  poolId: 'pool',
  tierId: 'tier',
  quoteId: 'quo',
  reservationId: 'rsv',
  orderId: 'ord',
};

/** A value `s` accepts, for an example: required fields only; an id from its pattern's prefix, a time in 2030. */
function exampleOf(s: JsonSchema, name: string): unknown {
  if (Array.isArray(s.anyOf)) return exampleOf((s.anyOf as JsonSchema[]).find((b) => b.type !== 'null') ?? {}, name);
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  switch (s.type) {
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, JsonSchema>;
      const required = (s.required ?? []) as string[];
      return Object.fromEntries(required.map((k) => [k, exampleOf(props[k] ?? {}, k)]));
    }
    case 'array':
      return typeof s.minItems === 'number' && s.minItems > 0 ? [exampleOf((s.items ?? {}) as JsonSchema, name)] : [];
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? Math.max(s.minimum, 1) : 1;
    case 'boolean':
      return true;
    case 'string': {
      const pattern = typeof s.pattern === 'string' ? s.pattern : '';
      const prefix = /^\^([a-z]+)_\[0-9a-z\]/.exec(pattern)?.[1];
      if (prefix) return `${prefix}_01jf8k2m9q7r5t`;
      if (pattern === '^[A-Z]{3}$') return 'EUR';
      if (pattern === '^[a-z]{3}$' || pattern === '^[A-Za-z]{3}$') return 'eur';
      if (name === 'api_version') return '2026-04-17';
      if (pattern === '^\\d{6}$') return '123456';
      const idPrefix =
        ID_PREFIXES[name] ?? /\b([a-z]{2,5})_…/.exec(typeof s.description === 'string' ? s.description : '')?.[1];
      if (idPrefix) return `${idPrefix}_01jf8k2m9q7r5t`;
      if (pattern === '^[A-Z]{2}$') return 'DE';
      if (s.format === 'date-time') return '2030-06-01T19:30:00Z';
      if (s.format === 'email') return 'buyer@example.com';
      if (s.format === 'uri' || s.format === 'url') return 'https://shop.example/tickets';
      const text = `example ${name}`.padEnd(typeof s.minLength === 'number' ? s.minLength : 0, '0');
      return typeof s.maxLength === 'number' ? text.slice(0, s.maxLength) : text;
    }
    default:
      return null;
  }
}

const inputs = new WeakMap<AnyTool, JsonSchema>();

/** One input the tool accepts: its own `example`, else one built from its input schema (required fields only). */
export function toolExample(tool: AnyTool): Record<string, unknown> {
  return (tool.example ?? exampleOf(jsonSchemaOf(tool.input as z.ZodType, 'input'), 'input')) as Record<
    string,
    unknown
  >;
}

/** The tool's input schema with its one example (`examples`), as every surface lists it. */
export function toolInputSchema(tool: AnyTool): JsonSchema {
  let found = inputs.get(tool);
  if (!found)
    inputs.set(tool, (found = { ...jsonSchemaOf(tool.input as z.ZodType, 'input'), examples: [toolExample(tool)] }));
  return found;
}

export function toolOutputSchema(tool: AnyTool): JsonSchema {
  return jsonSchemaOf(tool.output as z.ZodType, 'output');
}

/** The schema cut at `depth` levels of object nesting: a deeper object is `{ type: "object" }` with its description. */
function outline(s: JsonSchema, depth: number): JsonSchema {
  if (Array.isArray(s.anyOf)) return { ...s, anyOf: (s.anyOf as JsonSchema[]).map((b) => outline(b, depth)) };
  if (s.type === 'array' && typeof s.items === 'object' && s.items !== null)
    return { ...s, items: outline(s.items as JsonSchema, depth) };
  if (s.type !== 'object' || typeof s.properties !== 'object' || s.properties === null) return s;
  if (depth === 0) return { type: 'object', ...(s.description !== undefined && { description: s.description }) };
  const properties = Object.entries(s.properties as Record<string, JsonSchema>).map(([k, v]) => [
    k,
    outline(v, depth - 1),
  ]);
  return { ...s, properties: Object.fromEntries(properties) };
}

/** How long (JSON characters) a listed output schema may be before its deeper levels are outlined. */
export const LISTED_OUTPUT_SCHEMA_CHARS = 3000;
const outlines = new WeakMap<AnyTool, JsonSchema>();

/**
 * The output schema a tool list (MCP tools/list) carries: the whole schema when it is short, else the deepest outline
 * (nested objects written `{ type: "object" }`) within LISTED_OUTPUT_SCHEMA_CHARS, at least the top level's fields.
 * Hosts hand the model names, descriptions and input schemas; the full output schemas are in OpenAPI and on the A2A
 * extended card, and an outline still holds every result (structuredContent) the tool returns.
 */
export function listedOutputSchema(tool: AnyTool): JsonSchema {
  let found = outlines.get(tool);
  if (!found) {
    const full = toolOutputSchema(tool);
    found = outline(full, 1);
    for (let depth = 8; depth > 1; depth--) {
      const candidate = outline(full, depth);
      if (JSON.stringify(candidate).length <= LISTED_OUTPUT_SCHEMA_CHARS) {
        found = candidate;
        break;
      }
    }
    outlines.set(tool, found);
  }
  return found;
}
