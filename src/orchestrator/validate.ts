/** Strict input validation: zod issues become `unknown_field` or `invalid_input` with the offending path. */
import type { z } from 'zod';
import { ToolError } from '../kernel/errors.ts';

function pathString(path: readonly PropertyKey[]): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
    .join('.')
    .replace(/\.\[/g, '[');
}

/** The path of the first string holding a NUL character (PostgreSQL text and jsonb cannot store one). */
function nulPath(value: unknown, path: PropertyKey[] = []): PropertyKey[] | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [k, v] of Object.entries(value)) {
    const found = nulPath(v, [...path, Array.isArray(value) ? Number(k) : k]);
    if (found) return found;
  }
  return undefined;
}

/** Parses `input` with `schema`, or throws a ToolError naming the first bad field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) {
    const bad = nulPath(result.data);
    if (bad) {
      const field = pathString(bad) || '(body)';
      throw new ToolError('invalid_input', `Invalid input at ${field}: must not contain a NUL character`, {
        problems: [{ field, message: 'must not contain a NUL character' }],
      });
    }
    return result.data;
  }
  const issues = result.error.issues;
  const unknown = issues.find((i) => i.code === 'unrecognized_keys');
  if (unknown && unknown.code === 'unrecognized_keys') {
    const fields = unknown.keys.map((k) => pathString([...unknown.path, k]));
    throw new ToolError('unknown_field', `Unknown field: ${fields.join(', ')}.`, { fields, field: fields[0] });
  }
  const problems = issues.slice(0, 10).map((i) => ({ field: pathString(i.path) || '(body)', message: i.message }));
  const first = problems[0]!;
  throw new ToolError('invalid_input', `Invalid input at ${first.field}: ${first.message}`, { problems });
}
