/**
 * Secret fields of wire schemas, marked once where the field is declared (`secret(z.string())`) and redacted wherever a
 * call is kept after it has been answered (the A2A task store): a password, code, token, key or card number reaches
 * the handler and, when it is an output shown once, the live caller, but is never kept in clear at rest.
 * The mark lives in a registry of its own, so the generated JSON Schemas (OpenAPI, MCP, A2A) are unchanged.
 */
import { z } from 'zod';

/** What a secret field's value is replaced by in a kept copy. */
export const REDACTED = '[redacted]';

const secrets = z.registry<{ secret: true }>();

/**
 * Marks a schema (a field, or a whole object) as secret; returns the same schema. Apply it last, around `.describe()`
 * and `.nullable()` (a JSON Schema that folds them into one node keeps only the outer mark); `.optional()` may follow.
 */
export function secret<T extends z.ZodType>(schema: T): T {
  secrets.add(schema, { secret: true });
  return schema;
}

/** A field's place in a value: property names, `*` for every item of an array or value of a record. */
export type FieldPath = readonly string[];
export interface Field {
  path: FieldPath;
  secret: boolean;
}

type Node = { [k: string]: unknown };
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

function walk(node: unknown, path: string[], defs: Node, out: Field[], seen: Set<unknown>): void {
  if (!isNode(node) || seen.has(node)) return;
  if (typeof node.$ref === 'string') {
    const target = defs[node.$ref.replace(/^#\/\$defs\//, '')];
    seen.add(node);
    walk(target, path, defs, out, seen);
    seen.delete(node);
    return;
  }
  if (isNode(node.properties)) {
    for (const [name, child] of Object.entries(node.properties)) {
      const at = [...path, name];
      const isSecret = isNode(child) && child.secret === true;
      out.push({ path: at, secret: isSecret });
      if (!isSecret) walk(child, at, defs, out, seen);
    }
  }
  if (node.items) walk(node.items, [...path, '*'], defs, out, seen);
  if (Array.isArray(node.prefixItems)) for (const item of node.prefixItems) walk(item, [...path, '*'], defs, out, seen);
  if (isNode(node.additionalProperties)) walk(node.additionalProperties, [...path, '*'], defs, out, seen);
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const branches = node[key];
    if (Array.isArray(branches)) for (const b of branches) walk(b, path, defs, out, seen);
  }
}

/** Every named field of an object schema (as its JSON Schema shows it), with whether it is marked secret. */
export function fieldsOf(schema: z.ZodType, io: 'input' | 'output'): Field[] {
  const json = z.toJSONSchema(schema, { io, metadata: secrets, unrepresentable: 'any', cycles: 'ref' }) as Node;
  const out: Field[] = [];
  walk(json, [], isNode(json.$defs) ? json.$defs : {}, out, new Set());
  return out;
}

const cache = { input: new WeakMap<z.ZodType, FieldPath[]>(), output: new WeakMap<z.ZodType, FieldPath[]>() };

/** The paths of a schema's secret fields (computed once per schema). */
export function secretPaths(schema: z.ZodType, io: 'input' | 'output'): FieldPath[] {
  let paths = cache[io].get(schema);
  if (!paths) {
    paths = fieldsOf(schema, io)
      .filter((f) => f.secret)
      .map((f) => f.path);
    cache[io].set(schema, paths);
  }
  return paths;
}

function redactAt(value: unknown, path: FieldPath): unknown {
  if (path.length === 0) return value === undefined || value === null ? value : REDACTED;
  const [head, ...rest] = path;
  if (head === '*') {
    if (Array.isArray(value)) return value.map((v) => redactAt(v, rest));
    if (isNode(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactAt(v, rest)]));
    return value;
  }
  if (!isNode(value) || !Object.hasOwn(value, head as string)) return value;
  return { ...value, [head as string]: redactAt(value[head as string], rest) };
}

/** A copy of `value` with every secret field replaced by `REDACTED` (null and absent fields stay as they are). */
export function redact(value: unknown, paths: readonly FieldPath[]): unknown {
  return paths.reduce(redactAt, value);
}
