/** The one zod → JSON Schema converter: OpenAPI, MCP tool schemas and A2A skills all use it. */
import { z } from 'zod';
import type { AnyTool } from './tool.ts';

export type JsonSchema = Record<string, unknown>;

const cache = new WeakMap<z.ZodType, { input?: JsonSchema; output?: JsonSchema }>();

/** JSON Schema (draft 2020-12, without the `$schema` key) of a zod schema, as input or output. */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  let entry = cache.get(schema);
  if (!entry) {
    entry = {};
    cache.set(schema, entry);
  }
  const hit = entry[io];
  if (hit) return hit;
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  entry[io] = rest;
  return rest;
}

export function toolInputSchema(tool: AnyTool): JsonSchema {
  return jsonSchemaOf(tool.input, 'input');
}

export function toolOutputSchema(tool: AnyTool): JsonSchema {
  return jsonSchemaOf(tool.output, 'output');
}
