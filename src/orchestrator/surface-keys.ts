/**
 * How each surface carries what the orchestrator asks for (an idempotency key, a credential), so a refusal names
 * the mechanism of the surface it is sent on, and the `idempotencyKey` tool argument MCP and A2A accept where REST
 * takes the Idempotency-Key header (MCP hosts let a model set tool arguments, not `_meta`).
 */
import { z } from 'zod';
import { ToolError } from '../kernel/errors.ts';
import { jsonSchemaOf, toolExample, type JsonSchema } from './json-schema.ts';
import type { AnyTool } from './tool.ts';

export interface SurfaceMechanisms {
  /** How a caller sends an idempotency key here, as a noun phrase: "an Idempotency-Key header". */
  idempotencyKey: string;
  /** How a caller presents a credential here: "an Authorization: Bearer header". */
  credential: string;
  /**
   * A tool's `required` key may be left out here: the purchase spine is naturally idempotent (the same caller
   * reserving the same quote, or paying the same reservation, again gets the same outcome), so a retry without a
   * key is safe. REST keeps the key required, as its contract says.
   */
  keyOptional?: boolean;
  /** The tool arguments may carry the key as `idempotencyKey` (MCP, A2A). */
  keyArgument?: boolean;
}

/** REST's mechanisms, the default. */
export const REST_MECHANISMS: SurfaceMechanisms = {
  idempotencyKey: 'an Idempotency-Key header',
  credential: 'an Authorization: Bearer header',
};

/** The tool argument that carries the idempotency key on MCP and A2A. */
export const IDEMPOTENCY_ARGUMENT = 'idempotencyKey';

const KeyArgument = z
  .string()
  .min(1)
  .max(255)
  .optional()
  .describe('Optional. Makes a retry safe: the same key with the same arguments returns the stored outcome (24 h).');

/** Whether the tool honours a key given as the `idempotencyKey` argument (ACP tools carry theirs in `meta`). */
export function takesIdempotencyArgument(tool: AnyTool): boolean {
  return (tool.idempotency ?? 'none') !== 'none' && !tool.idempotencyRequest;
}

const schemas = new WeakMap<AnyTool, JsonSchema>();

/**
 * The input schema MCP and A2A show: the tool's own, plus the optional `idempotencyKey` where the tool honours a key.
 */
export function protocolInputSchema(tool: AnyTool): JsonSchema {
  let schema = schemas.get(tool);
  if (!schema) {
    const input = tool.input as z.ZodObject;
    const own = jsonSchemaOf(
      takesIdempotencyArgument(tool) ? input.extend({ [IDEMPOTENCY_ARGUMENT]: KeyArgument }) : input,
      'input',
    );
    schema = { ...own, examples: [toolExample(tool)] };
    schemas.set(tool, schema);
  }
  return schema;
}

/**
 * Takes the `idempotencyKey` argument out of a protocol call's arguments (for tools that honour a key), so the
 * tool sees its own input. A second key from the transport (MCP `_meta`) must agree with it.
 */
export function splitIdempotencyArgument(
  tool: AnyTool | undefined,
  args: unknown,
  transportKey: string | undefined,
): { input: unknown; key: string | undefined } {
  if (
    !tool ||
    !takesIdempotencyArgument(tool) ||
    typeof args !== 'object' ||
    args === null ||
    !(IDEMPOTENCY_ARGUMENT in args)
  ) {
    return { input: args, key: transportKey };
  }
  const { [IDEMPOTENCY_ARGUMENT]: key, ...input } = args as Record<string, unknown>;
  if (key === undefined) return { input, key: transportKey };
  if (typeof key !== 'string') {
    throw new ToolError('invalid_input', `${IDEMPOTENCY_ARGUMENT} must be a string.`, { field: IDEMPOTENCY_ARGUMENT });
  }
  if (transportKey !== undefined && transportKey !== key) {
    throw new ToolError(
      'invalid_input',
      `Two different idempotency keys were sent; send one (${IDEMPOTENCY_ARGUMENT}).`,
      {
        field: IDEMPOTENCY_ARGUMENT,
      },
    );
  }
  return { input, key };
}
