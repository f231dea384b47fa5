/**
 * Structural limits every input meets before anything reads it: nesting depth, well-formed strings (no lone UTF-16
 * surrogate, which PostgreSQL cannot store), and plain objects only (an own `__proto__` key, or an object whose
 * prototype was replaced, is refused rather than read through). Iterative, so a deep input cannot overflow the stack.
 */
import { ToolError } from './errors.ts';

/** How deeply a request body or tool input may nest objects and arrays (no tool input comes near it). */
export const MAX_JSON_DEPTH = 64;

export type InputShapeProblem =
  | { kind: 'too_deep'; field: string; message: string }
  | { kind: 'ill_formed'; field: string; message: string }
  | { kind: 'prototype'; field: string; message: string };

function pathString(path: readonly (string | number)[]): string {
  return (
    path
      .map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
      .join('.')
      .replace(/\.\[/g, '[') || '(body)'
  );
}

/** The first structural problem of `value`, or undefined. `maxDepth` counts nested objects and arrays. */
export function inputShapeProblem(value: unknown, maxDepth = MAX_JSON_DEPTH): InputShapeProblem | undefined {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (!v.isWellFormed())
        return {
          kind: 'ill_formed',
          field: pathString(path),
          message: `Invalid input at ${pathString(path)}: must not contain a lone UTF-16 surrogate`,
        };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (path.length >= maxDepth) {
      return {
        kind: 'too_deep',
        field: pathString(path),
        message: `The input is nested more than ${maxDepth} levels deep.`,
      };
    }
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push({ value: v[i], path: [...path, i] });
      continue;
    }
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== null) {
      return {
        kind: 'prototype',
        field: pathString([...path, '__proto__']),
        message: `Unknown field: ${pathString([...path, '__proto__'])}.`,
      };
    }
    for (const key of Object.keys(v)) {
      if (key === '__proto__')
        return {
          kind: 'prototype',
          field: pathString([...path, key]),
          message: `Unknown field: ${pathString([...path, key])}.`,
        };
      if (!key.isWellFormed())
        return {
          kind: 'ill_formed',
          field: pathString(path),
          message: `Invalid input at ${pathString(path)}: a field name contains a lone UTF-16 surrogate`,
        };
      stack.push({ value: (v as Record<string, unknown>)[key], path: [...path, key] });
    }
  }
  return undefined;
}

/** The refusal for a structural problem: `unknown_field` for `__proto__`, `invalid_input` otherwise. */
export function inputShapeError(problem: InputShapeProblem): ToolError {
  if (problem.kind === 'prototype')
    return new ToolError('unknown_field', problem.message, { fields: [problem.field], field: problem.field });
  return new ToolError('invalid_input', problem.message, {
    problems: [{ field: problem.field, message: problem.message }],
  });
}

/** Throws the refusal for the first structural problem of `value`, if any. */
export function assertInputShape(value: unknown, maxDepth = MAX_JSON_DEPTH): void {
  const problem = inputShapeProblem(value, maxDepth);
  if (problem) throw inputShapeError(problem);
}

/**
 * True when `value` nests objects and arrays more than `maxDepth` levels (for protocol envelopes, before an SDK reads
 * them).
 */
export function nestedTooDeep(value: unknown, maxDepth = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= maxDepth) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}
