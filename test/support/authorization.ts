/**
 * What the authorization matrices share (test/security/authorization-matrix.test.ts: every tool × principal ×
 * surface; authorization-lists.test.ts: every list filter): the callers, the refusal a tool's `auth` declaration
 * says a caller gets (derived independently of src/orchestrator/authorize.ts), and how an answer is read on each surface.
 */
import { ERRORS, type ErrorCode } from '../../src/kernel/errors.ts';
import { toolInputSchema, toolOutputSchema, type JsonSchema } from '../../src/orchestrator/json-schema.ts';
import type { AnyTool } from '../../src/orchestrator/tool.ts';
import type { Scope } from '../../src/kernel/principal.ts';
import { TOOLS } from '../../src/tools/index.ts';
import type { Outcome } from './outcome.ts';
import { ACP_VERSION } from './acp.ts';

export interface Who {
  name: string;
  token: string | undefined;
  /** What the credential is, as the auth declaration sees it; `invalid` = no principal at all. */
  kind: 'invalid' | 'api_key' | 'console_user' | 'staff' | 'buyer' | 'agent';
  scopes?: Scope[];
  role?: 'owner' | 'integrator';
  bounded?: boolean;
}

/** The refusal the tool's `auth` declares for this caller, or undefined when the call may proceed to the handler. */
export function expectedRefusal(tool: AnyTool, who: Who): 401 | 403 | undefined {
  const auth = tool.auth;
  if (auth.public) return undefined;
  if (who.kind === 'invalid') return 401;
  if (!auth.principals.includes(who.kind)) return 403;
  if (who.kind === 'api_key' && (auth.scopes ?? []).some((s) => !who.scopes!.includes(s))) return 403;
  if (who.kind === 'console_user' && auth.roles && !auth.roles.includes(who.role!)) return 403;
  if (who.kind === 'buyer' && auth.fullBuyer && who.bounded && !auth.attestedBuyer) return 403;
  return undefined;
}

/** ACP tools carry the protocol version in `meta` (an unsupported one is refused before anything is looked up). */
export const withAcpVersion = (input: Record<string, unknown>): Record<string, unknown> =>
  input.meta && typeof input.meta === 'object'
    ? { ...input, meta: { ...input.meta, api_version: ACP_VERSION } }
    : input;

/** The REST collection an `{id}` belongs to (`/v1/integration/tiers/{id}/retire` → `tiers`). */
export const collectionOf = (tool: AnyTool): string | undefined => /\/([a-z_-]+)\/\{id\}/.exec(tool.http.path)?.[1];

export const statusOf = (o: Outcome): number =>
  o.ok ? (o.status ?? 200) : (o.status ?? ERRORS[o.code as ErrorCode]?.status ?? 0);

/** An input field that names an object (`merchantId`, `eventId`, `id`, …), as opposed to a page cursor or a value. */
export const namesObject = (field: string): boolean => /(^id$|Id$)/.test(field);

/**
 * The list operations, read from the registry: every read-only tool that is named `list_…`, answers a list (an array
 * at the top of its output) or takes an optional filter naming an object. A new one joins the matrix below by itself.
 */
export function listOperations(): AnyTool[] {
  return TOOLS.filter((tool) => {
    if (!tool.annotations.readOnlyHint) return false;
    const input = toolInputSchema(tool);
    const required = new Set((input.required ?? []) as string[]);
    const filters = Object.keys((input.properties ?? {}) as object).filter((k) => namesObject(k) && !required.has(k));
    const output = Object.values((toolOutputSchema(tool).properties ?? {}) as Record<string, JsonSchema>);
    return tool.name.startsWith('list_') || filters.length > 0 || output.some((p) => p.type === 'array');
  });
}

/** Answers an MCP JSON-RPC error carrying `{ code, message }` (how MCP refuses some calls) as a refusal. */
export async function outcomeOf(call: Promise<Outcome>): Promise<Outcome> {
  return call.catch(mcpRefusal);
}

/**
 * An MCP JSON-RPC error carrying `{ code, message }` (how MCP refuses some calls, and ACP's MCP binding every ACP
 * error) as a refusal. `delegate_payment`'s ACP codes are a closed enum, so its other refusals travel as
 * `invalid_card` with our code leading the message (`unauthenticated: …`, docs/acp.md): that code is the refusal.
 */
export function mcpRefusal(err: { data?: { code?: string; message?: string } }): Outcome {
  let code = err.data?.code;
  const message = String(err.data?.message ?? '');
  const lead = /^([a-z_]+): /.exec(message)?.[1];
  if (code === 'invalid_card' && lead && lead in ERRORS) code = lead;
  if (typeof code !== 'string' || !(code in ERRORS)) throw err;
  return { ok: false, code, message, error: err.data, status: ERRORS[code as ErrorCode].status };
}
