/** The one definition of a capability: every surface (REST, OpenAPI, MCP, A2A) is generated from these. */
import type { z } from 'zod';
import type { ErrorCode } from '../kernel/errors.ts';
import type { PrincipalKind, Role, Scope } from '../kernel/principal.ts';
import type { Services, ToolContext } from '../domain/context.ts';
import type { Arrival } from '../domain/purchase/reserve-admission.ts';

/** The spec's areas; they become OpenAPI tags and A2A skill tags. */
export const AREAS = [
  'catalog',
  'ticketing',
  'payments',
  'acp',
  'ucp',
  'vic',
  'signed-mandate',
  'ap2',
  'buyer',
  'discovery',
  'protocols',
  'integration',
  'console',
  'operations',
] as const;
export type Area = (typeof AREAS)[number];

/**
 * Who may call a tool. `public` tools need no credential. Otherwise the principal's kind must be
 * listed; an API key must hold every scope in `scopes`; a console user must have one of `roles`
 * (all roles when omitted); `fullBuyer` refuses bounded buyer sessions, except, when `attestedBuyer` is also set,
 * bounded sessions minted with attested consent (the handler then keeps within the staff-set ceilings).
 */
export type Auth =
  | { public: true; listed?: readonly PrincipalKind[] }
  | {
      public?: false;
      /**
       * The principal kinds whose tool lists (MCP tools/list, A2A cards) carry the tool, when not every kind that may
       * call it uses it for its job (a sign-in is listed to anonymous callers only). Listing only: a call is decided
       * by the rest of `auth`, so an unlisted tool a caller may call still runs.
       */
      listed?: readonly PrincipalKind[];
      principals: readonly PrincipalKind[];
      scopes?: readonly Scope[];
      roles?: readonly Role[];
      fullBuyer?: boolean;
      attestedBuyer?: boolean;
      /**
       * The tool spends under an authority other than a buyer's permission (a signed mandate): an agent that acts
       * inside one permission only (an OAuth access token, `permissionId` on the principal) may not call it.
       */
      outsidePermission?: boolean;
    };

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ToolHttp<O> {
  method: HttpMethod;
  /** OpenAPI-style path under the base URL, e.g. `/v1/ticketing/reservations/{id}/confirm`. */
  path: string;
  /** Success status, or a function of the output (confirm answers 202 while payment is pending). */
  status?: number | ((output: O) => number);
  /**
   * A public read that caches may keep: the REST answer carries `Cache-Control: public, max-age=<maxAgeSeconds>`
   * and a strong `ETag` of the body, and a GET whose `If-None-Match` matches is answered 304 without a body.
   * Error answers carry `Cache-Control: no-store`.
   */
  cache?: { maxAgeSeconds: number };
}

export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** `required`: an Idempotency-Key must be sent; `optional`: honoured when sent; `none`: ignored. */
export type IdempotencyMode = 'required' | 'optional' | 'none';

/**
 * A protocol's own idempotency rules (ACP): the key (e.g. from the input's `meta`, else the transport's),
 * the endpoint it is scoped to (with the caller), and the body whose canonical JSON is compared.
 */
export interface IdempotencyRequest {
  key: string | undefined;
  endpoint: string;
  body: unknown;
}

export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  area: Area;
  /** Written for the model that reads it: it is the MCP, A2A and OpenAPI documentation at once. */
  description: string;
  input: I;
  /**
   * One input the tool accepts, as a model would send it: the `examples` of its listed input schema (MCP, A2A) and
   * the OpenAPI request example. Default: one built from the input schema (required fields only).
   */
  example?: z.input<I>;
  output: O;
  /** Codes this tool may raise beyond the generic ones every tool may raise. */
  errors: readonly ErrorCode[];
  /**
   * Codes (among `errors`) meaning the authority presented in the input itself — a signed mandate — is missing
   * or not acceptable, so the caller must obtain authorization (a new mandate) before retrying. Protocols with
   * an auth-required outcome use it (A2A: TASK_STATE_AUTH_REQUIRED); REST and MCP report the code as usual.
   */
  authRequiredErrors?: readonly ErrorCode[];
  auth: Auth;
  http: ToolHttp<z.infer<O>>;
  annotations: ToolAnnotations;
  idempotency?: IdempotencyMode;
  /**
   * Overrides where the idempotency key comes from and what it covers (default: transport key, whole input, per
   * caller). It runs before any key is claimed, so a ToolError it throws (e.g. a protocol version check) is never
   * stored.
   */
  idempotencyRequest?: (input: z.infer<I>, transportKey: string | undefined) => IdempotencyRequest;
  /** Every success status `http.status` may return, when it is a function (documented in OpenAPI). */
  successStatuses?: readonly number[];
  /**
   * `true` (default): the handler runs inside one database transaction. `false`: the handler
   * manages its own short transactions (needed around payment-provider calls). `'shared'`: the domain runs
   * the call in a transaction shared with concurrent calls (the reserve batcher) and stores the call's
   * idempotency outcome in it through the call's key (`ctx.idempotency`, `ctx.shared`).
   */
  transactional?: boolean | 'shared';
  /**
   * Local admission control for load: 429 `rate_limited` (with retryAfter) when the capacity behind the tool is
   * saturated, never stored under the key. `check` refuses when that is already certain and takes nothing (a surface
   * may run it before it reads the input); `arrive` runs first in the orchestrator (a refusal costs no lookup), and the
   * call takes its place (`take`) only once its caller is authenticated and its input valid, so a caller that is
   * neither, or one still sending its request, never holds a place another caller needs.
   */
  admission?: { check: (services: Services) => void; arrive: (services: Services) => Arrival };
  /**
   * `'strict'`: a sign-in, code or token endpoint, where each call is a guess at a secret or sends an e-mail; it is
   * charged to a stricter budget (`RATE_LIMIT_STRICT_PER_MINUTE`) as well as the ordinary one.
   */
  rateLimit?: 'strict';
  /**
   * The tool opens (its output carries a session JWT in `token`) or ends a page session of this kind. REST only, and
   * only when the page asks (`X-Tessera-Session`): it then sets or clears the HttpOnly cookie (docs/console.md).
   */
  pageSession?: { kind: 'console' | 'buyer'; effect: 'opens' | 'ends' };
  /**
   * `false`: a write the audit log does not record (docs/console.md, "Audit log"): the purchase spine (quote, reserve,
   * confirm, release), whose record is the quote, reservation and order themselves, and whose statement count is
   * measured (docs/performance.md). Default: every successful write by a console user or an API key is recorded.
   */
  audited?: false;
  handler: (input: z.infer<I>, ctx: ToolContext) => Promise<z.infer<O>>;
}

/** Declares a tool with full type inference of its input and output. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  def: ToolDefinition<I, O>,
): ToolDefinition<I, O> {
  return def;
}

/** A tool with its types erased, as the registry and adapters see it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = ToolDefinition<any, any>;

/** The success status for a tool's output. */
export function successStatus(tool: AnyTool, output: unknown): number {
  const s = tool.http.status;
  if (typeof s === 'function') return s(output);
  return s ?? 200;
}
