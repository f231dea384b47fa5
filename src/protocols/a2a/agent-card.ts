/** The A2A agent card, generated from the tool registry: one skill per tool, its input schema kept machine-readable. */
import type { AgentCard, AgentSkill } from '@a2a-js/sdk';
import { toolOutputSchema, type JsonSchema } from '../../orchestrator/json-schema.ts';
import { mayList } from '../../orchestrator/authorize.ts';
import { protocolInputSchema } from '../../orchestrator/surface-keys.ts';
import type { AnyTool } from '../../orchestrator/tool.ts';
import { answersWithMessage } from './executor.ts';
import { ucpCardExtension } from './ucp-binding.ts';

/** Where the JSON-RPC binding listens, relative to the public URL. */
export const A2A_JSONRPC_PATH = '/a2a/jsonrpc';

/**
 * The card extension that carries every skill's JSON Schemas. `AgentSkill` has no free-form field
 * and `AgentCard.toJSON` drops unknown keys, but an extension's `params` survives serialization and
 * the SDK client's card resolver, so `params.skills[<tool name>]` = `{ inputSchema, outputSchema }`.
 */
export const SKILL_SCHEMAS_EXTENSION = 'urn:tessera:a2a:skill-schemas:v1';

/** The tag of a skill whose success is answered with a message (a read), not a task. */
export const READ_ONLY_TAG = 'read-only';

/** The API version, the same as the OpenAPI document's. */
const CARD_VERSION = '1.0.0';

/** A one-line, TypeScript-like rendering of a JSON Schema, for the skill description. */
export function compactSchema(s: JsonSchema): string {
  if (Array.isArray(s.anyOf)) return (s.anyOf as JsonSchema[]).map(compactSchema).join(' | ');
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (s.type === 'array') {
    const item = compactSchema((s.items ?? {}) as JsonSchema);
    return item.includes(' | ') ? `(${item})[]` : `${item}[]`;
  }
  if (s.type === 'object' && s.properties) {
    const required = new Set((s.required ?? []) as string[]);
    const fields = Object.entries(s.properties as Record<string, JsonSchema>).map(
      ([k, v]) => `${k}${required.has(k) ? '' : '?'}: ${compactSchema(v)}`,
    );
    return `{ ${fields.join(', ')} }`;
  }
  if (s.type === 'string' && typeof s.format === 'string') return s.format;
  return typeof s.type === 'string' ? s.type : 'any';
}

/** A minimal input satisfying the schema's shape (required fields only), with placeholder values. */
function exampleOf(s: JsonSchema, name = 'value'): unknown {
  if (Array.isArray(s.anyOf)) return exampleOf((s.anyOf as JsonSchema[]).find((b) => b.type !== 'null') ?? {}, name);
  if (Array.isArray(s.enum)) return s.enum[0];
  switch (s.type) {
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, JsonSchema>;
      const required = (s.required ?? []) as string[];
      return Object.fromEntries(required.map((k) => [k, exampleOf(props[k] ?? {}, k)]));
    }
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? Math.max(s.minimum, 1) : 1;
    case 'boolean':
      return true;
    case 'string':
      return s.format === 'date-time' ? '2030-01-01T20:00:00Z' : `<${name}>`;
    default:
      return null;
  }
}

function skillOf(tool: AnyTool): AgentSkill {
  const input = protocolInputSchema(tool);
  return {
    id: tool.name,
    name: tool.title,
    description: `${tool.description}\n\nSend a data part {"skill": "${tool.name}", "input": ${compactSchema(input)}}.`,
    // `read-only`: a success answers with a message, not a task (executor.ts).
    tags: answersWithMessage(tool) ? [tool.area, READ_ONLY_TAG] : [tool.area],
    examples: [JSON.stringify({ skill: tool.name, input: exampleOf(input) })],
    // Empty: the card's defaultInputModes and defaultOutputModes (application/json) apply; omitted from the JSON.
    inputModes: [],
    outputModes: [],
    // Public tools need no credential: an empty requirement overrides the card-level bearer one.
    securityRequirements: tool.auth.public ? [{ schemes: {} }] : [],
  };
}

/** A stand-in agent principal: `auth` declarations decide by principal kind, so any agent may call the same tools. */
const ANY_AGENT = { kind: 'agent', agentId: '', buyerId: '' } as const;

/** The skills of the public card: those listed to an anonymous caller and to an agent (the usual A2A peer). */
export function publicCardTools(tools: readonly AnyTool[]): AnyTool[] {
  return tools.filter((t) => mayList(t, { kind: 'anonymous' }) || mayList(t, ANY_AGENT));
}

/**
 * The card for `tools` served at `publicUrl`; serve it with `AgentCard.toJSON(card)` (proto-JSON oneofs). The public
 * card carries the public and agent skills, each with a compact input shape and an example; the authenticated
 * extended card (GetExtendedAgentCard) the caller's own, with `schemas` (the skill-schemas extension); `ucp` adds
 * UCP's A2A extension (the UCP checkout tools are registered).
 */
export function buildAgentCard(
  tools: readonly AnyTool[],
  publicUrl: string,
  opts: { schemas?: boolean; ucp?: boolean } = {},
): AgentCard {
  const schemas = Object.fromEntries(
    tools.map((t) => [t.name, { inputSchema: protocolInputSchema(t), outputSchema: toolOutputSchema(t) }]),
  );
  const schemaExtension = {
    uri: SKILL_SCHEMAS_EXTENSION,
    description: 'params.skills maps each skill id to its input and output JSON Schemas (draft 2020-12).',
    required: false,
    params: { skills: schemas },
  };
  return {
    name: 'Tessera',
    description:
      'Secure agentic checkout for live-events ticketing. Every skill is one Tessera operation: send a message with a ' +
      'data part {"skill": "<skill id>", "input": {...}, "idempotencyKey"?: "..."}. A skill tagged read-only answers ' +
      'with a message whose data part is the result; any other skill with a completed task whose data artifact is the ' +
      'result. Errors come back as a task state with a data part {code, message, details?}. ' +
      'This card lists the public skills and those an agent may call; with a credential, GetExtendedAgentCard lists yours ' +
      `with their JSON Schemas (extension ${SKILL_SCHEMAS_EXTENSION}).`,
    version: CARD_VERSION,
    provider: { organization: 'Tessera', url: publicUrl },
    documentationUrl: `${publicUrl}/v1/openapi.json`,
    iconUrl: undefined,
    supportedInterfaces: [
      { url: `${publicUrl}${A2A_JSONRPC_PATH}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
      // v0.3 peers on the same endpoint: a request without A2A-Version (or naming 0.3) is served as v0.3 (router.ts).
      { url: `${publicUrl}${A2A_JSONRPC_PATH}`, protocolBinding: 'JSONRPC', protocolVersion: '0.3', tenant: '' },
    ],
    capabilities: {
      streaming: false,
      pushNotifications: false,
      extendedAgentCard: true,
      // The schemas would make the public card four times its size: they are on the extended card (and in OpenAPI).
      // UCP's A2A binding (ucp-binding.ts), when the UCP checkout tools are registered.
      extensions: [...(opts.ucp ? [ucpCardExtension()] : []), ...(opts.schemas ? [schemaExtension] : [])],
    },
    securitySchemes: {
      bearer: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: {
            scheme: 'Bearer',
            // No bearerFormat: API keys and agent tokens are opaque, only sessions are JWTs (issue #36, 2).
            bearerFormat: '',
            description: 'An API key (tsk_…), a console or buyer session JWT, or an agent token (tag_…).',
          },
        },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills: tools.map(skillOf),
    signatures: [],
  };
}
