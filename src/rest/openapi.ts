/** Builds the OpenAPI 3.1.0 document from the tool registry: nothing here is written by hand per operation. */
import { ERRORS, type ErrorCode } from '../kernel/errors.ts';
import { toolExample, toolInputSchema, toolOutputSchema, type JsonSchema } from '../orchestrator/json-schema.ts';
import { AP2_ALTERNATIVES } from '../domain/ap2/refusal.ts';
import { AREA_DESCRIPTIONS } from '../orchestrator/areas.ts';
import { AREAS, type AnyTool } from '../orchestrator/tool.ts';
import { responseBounds, withIntegerFormats, type ResponseBounder } from './openapi-bounds.ts';

/** Codes any authenticated operation may answer, beyond those a tool declares. */
const COMMON_ERRORS: readonly ErrorCode[] = ['invalid_input', 'unknown_field', 'rate_limited', 'internal_error'];
const AUTH_ERRORS: readonly ErrorCode[] = ['unauthenticated', 'forbidden'];

export function pathParams(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
}

function errorResponses(tool: AnyTool): Record<string, unknown> {
  const codes = new Set<ErrorCode>([...COMMON_ERRORS, ...(tool.auth.public ? [] : AUTH_ERRORS), ...tool.errors]);
  // The orchestrator refuses an API key without the tool's scopes (authorize.ts), whether the tool names it or not.
  if (!tool.auth.public && tool.auth.principals.includes('api_key') && tool.auth.scopes?.length)
    codes.add('insufficient_scope');
  if (tool.idempotency && tool.idempotency !== 'none') {
    codes.add('idempotency_conflict').add('idempotency_in_flight');
    if (tool.idempotency === 'required') codes.add('missing_idempotency_key');
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERRORS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, unknown> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const headers =
      status === 429 || list.includes('idempotency_in_flight')
        ? { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: RETRY_AFTER } }
        : undefined;
    out[String(status)] = {
      description: `Error: ${list.map((c) => `\`${c}\``).join(', ')}.`,
      ...(headers ? { headers } : {}),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return out;
}

/**
 * The rate-limit headers of every answer a budget was charged for (src/http/rate-limit.ts): the IETF draft's
 * `RateLimit-Policy` and `RateLimit`. Not on load refusals (429, 503 given before any charge), hence not required.
 */
const RATE_LIMIT_HEADERS = {
  RateLimit: {
    description:
      'What is left of each budget charged for this request: `"caller";r=599;t=42` (requests left, seconds until the ' +
      'window resets); policies `address` (no or failed credential), `caller`, `strict` (sign-in and code endpoints).',
    schema: { type: 'string', maxLength: 200, pattern: '^"[a-z]+";r=\\d+;t=\\d+(, "[a-z]+";r=\\d+;t=\\d+)*$' },
  },
  'RateLimit-Policy': {
    description: 'Each charged budget: `"caller";q=600;w=60` (requests per 60-second window).',
    schema: { type: 'string', maxLength: 200, pattern: '^"[a-z]+";q=\\d+;w=60(, "[a-z]+";q=\\d+;w=60)*$' },
  },
};

/** Sent on the buyer API (`/v1/buyer/…`) to a shop's embed origin only (src/http/cors.ts). */
const CORS_HEADERS = {
  'Access-Control-Allow-Origin': {
    description: 'The caller’s Origin, when it is an embed origin of the session’s shop; absent otherwise.',
    schema: { type: 'string', format: 'uri', maxLength: 2048 },
  },
};

/** Adds the rate-limit headers to every answer, and the CORS header on the buyer API. */
function withAnswerHeaders(path: string, op: Record<string, unknown>): Record<string, unknown> {
  for (const r of Object.values(op.responses as Record<string, Record<string, unknown>>)) {
    r.headers = {
      ...(r.headers as Record<string, unknown> | undefined),
      ...RATE_LIMIT_HEADERS,
      ...(path.startsWith('/v1/buyer/') && CORS_HEADERS),
    };
  }
  return op;
}

/**
 * The Retry-After header's value: whole seconds (the longest wait the service asks for is the 15-minute e-mail budget).
 */
const RETRY_AFTER = { type: 'integer', minimum: 1, maximum: 86_400 };

function operation(tool: AnyTool, bound: ResponseBounder): Record<string, unknown> {
  const input = toolInputSchema(tool);
  const example = toolExample(tool);
  const props = (input.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((input.required ?? []) as string[]);
  const inPath = pathParams(tool.http.path);
  const parameters: unknown[] = inPath.map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: props[name] ?? { type: 'string' },
    ...(example[name] !== undefined && { example: example[name] }),
  }));
  const bodyProps: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(props)) {
    if (inPath.includes(name)) continue;
    if (tool.http.method === 'GET' || tool.http.method === 'DELETE') {
      parameters.push({
        name,
        in: 'query',
        required: required.has(name),
        schema,
        ...(example[name] !== undefined && { example: example[name] }),
      });
    } else {
      bodyProps[name] = schema;
    }
  }
  if (tool.idempotency && tool.idempotency !== 'none') {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: tool.idempotency === 'required',
      description: 'Replays the stored response for 24 hours when the same key and body are sent again.',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  }
  const op: Record<string, unknown> = {
    operationId: tool.name,
    summary: tool.title,
    description: tool.description,
    tags: [tool.area],
    parameters,
    responses: {},
  };
  if (tool.auth.public) op.security = [];
  if (tool.http.method !== 'GET' && tool.http.method !== 'DELETE') {
    const bodyRequired = [...required].filter((n) => !inPath.includes(n));
    op.requestBody = {
      required: bodyRequired.length > 0,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: bodyProps,
            ...(bodyRequired.length ? { required: bodyRequired } : {}),
            additionalProperties: false,
          },
          // The tool's one input example (the MCP and A2A input schemas carry the same), less its path parameters.
          example: Object.fromEntries(Object.entries(example).filter(([name]) => !inPath.includes(name))),
        },
      },
    };
  }
  const success = typeof tool.http.status === 'number' ? [tool.http.status] : (tool.successStatuses ?? [200]);
  const responses: Record<string, unknown> = {};
  for (const status of success) {
    responses[String(status)] = {
      description: status === 202 ? 'Accepted: the payment provider confirms asynchronously.' : 'Success.',
      content: { 'application/json': { schema: bound(toolOutputSchema(tool), tool.name) } },
    };
  }
  if (tool.http.cache) addCaching(parameters, responses, tool.http.cache.maxAgeSeconds);
  op.responses = { ...responses, ...errorResponses(tool) };
  return op;
}

/** A cacheable public read: `If-None-Match` in, `ETag` and `Cache-Control` out, 304 when the copy is current. */
function addCaching(parameters: unknown[], responses: Record<string, unknown>, maxAge: number): void {
  parameters.push({
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: 'An ETag from an earlier answer: when the content is unchanged the answer is 304 with no body.',
    schema: { type: 'string', maxLength: 200 },
  });
  const headers = {
    ETag: { description: 'A strong entity tag of the body.', schema: { type: 'string', maxLength: 200 } },
    'Cache-Control': { description: `public, max-age=${maxAge}`, schema: { type: 'string', maxLength: 100 } },
  };
  for (const r of Object.values(responses)) (r as Record<string, unknown>).headers = headers;
  responses['304'] = { description: 'Not modified: the ETag sent in If-None-Match is current.', headers };
}

/**
 * The AP2 routes (app-router.ts): every method on `/v1/ap2` and below answers 422 `ap2_unsupported`, naming the
 * supported ways to get spend authority. Documented as POST, the method an AP2 client sends its mandates with.
 */
function ap2Paths(): Record<string, Record<string, unknown>> {
  const refused = (operationId: string, parameters: unknown[]) => ({
    post: {
      operationId,
      summary: 'AP2 (refused)',
      description:
        'AP2 is not supported pending verified checkout authorization; AP2 mandates grant no spend authority here. Any ' +
        `method answers 422 \`ap2_unsupported\`. Use instead: ${AP2_ALTERNATIVES.map((a) => a.operation).join('; ')}.`,
      tags: ['ap2'],
      security: [],
      parameters,
      requestBody: {
        required: false,
        content: {
          'application/json': {
            schema: { type: 'object', maxProperties: 100, additionalProperties: true },
            example: { 'ap2.mandates.IntentMandate': { natural_language_description: 'Two tickets for Friday' } },
          },
        },
      },
      responses: {
        '422': {
          description: 'Error: `ap2_unsupported`.',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
        '429': {
          description: 'Error: `rate_limited`.',
          headers: { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: RETRY_AFTER } },
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
        '500': {
          description: 'Error: `internal_error`.',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
    },
  });
  const rest = {
    name: 'rest',
    in: 'path',
    required: true,
    description: 'Any path below /v1/ap2.',
    schema: { type: 'string', maxLength: 2000 },
  };
  return { '/v1/ap2': refused('ap2_unsupported', []), '/v1/ap2/{rest}': refused('ap2_unsupported_path', [rest]) };
}

export interface OpenApiOptions {
  serverUrl: string;
}

/** The whole OpenAPI 3.1.0 document for the given tools. */
export function buildOpenApi(tools: readonly AnyTool[], opts: OpenApiOptions): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const bound = responseBounds(tools, opts.serverUrl);
  for (const tool of tools) {
    const item = (paths[tool.http.path] ??= {});
    item[tool.http.method.toLowerCase()] = withAnswerHeaders(tool.http.path, operation(tool, bound));
  }
  for (const [path, item] of Object.entries(ap2Paths())) {
    paths[path] = { post: withAnswerHeaders(path, item.post as Record<string, unknown>) };
  }
  return withIntegerFormats({
    openapi: '3.1.0',
    info: {
      title: 'Tessera',
      version: '1.0.0',
      summary: 'Secure agentic checkout for live-events ticketing.',
      description:
        'REST is the canonical surface; MCP (`/mcp`) and A2A (`/.well-known/agent-card.json`) expose the same operations. ' +
        'Errors are `{ code, message, details? }`; money is integer minor units with an ISO 4217 currency; times are RFC 3339 UTC. ' +
        'What changed: `/docs/changelog`.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // Public (x-internal: false): merchants, agents and buyers call it. Payments run against the sandbox provider only.
    servers: [{ url: opts.serverUrl, description: 'This server (sandbox payments)', 'x-internal': false }],
    security: [{ bearerAuth: [] }],
    // Every area of the spec is a tag, those without a tool too (ap2: the refusal routes; protocols: MCP and A2A).
    tags: AREAS.map((name) => ({ name, description: AREA_DESCRIPTIONS[name] })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'An API key (`tsk_…`), a console or buyer session JWT, or an agent token (`tag_…`). Session JWTs follow ' +
            'RFC8725 on algorithms: HS256 only, pinned when verifying (never `alg: none` or a key the token names); ' +
            'issuer and expiry are checked.',
        },
      },
      schemas: {
        Error: {
          type: 'object',
          required: ['code', 'message'],
          properties: {
            code: { type: 'string', enum: Object.keys(ERRORS) },
            message: { type: 'string', maxLength: 2000 },
            details: { type: 'object', additionalProperties: true },
            retryAfter: { ...RETRY_AFTER, description: 'Seconds to wait (429 and 409 idempotency_in_flight).' },
          },
        },
      },
    },
  });
}
