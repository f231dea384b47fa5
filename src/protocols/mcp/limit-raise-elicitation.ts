/**
 * MCP URL elicitation when an agent reaches its buyer's limit (MCP 2025-11-25): for a client that declared
 * `capabilities.elicitation.url`, a refusal `over_purchase_cap` or `allowance_exhausted` becomes a limit-raise request
 * (the `request_limit_raise` tool, through the orchestrator) and the call is answered with JSON-RPC error -32042
 * (URLElicitationRequired) carrying the buyer page's URL; the agent retries the call once the buyer approved. `/mcp`
 * answers each POST with JSON and keeps no stream open, so it cannot send `elicitation/create` in the middle of a call
 * nor `notifications/elicitation/complete` afterwards: -32042 is the form that works over it (docs/protocols.md).
 */
import { createHash } from 'node:crypto';
import { UrlElicitationRequiredError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RAISABLE_CODES } from '../../domain/buyers/limit-raises.ts';
import type { RequestInfo } from '../../domain/context.ts';
import type { ErrorBody } from '../../kernel/errors.ts';
import type { Orchestrator } from '../../orchestrator/invoke.ts';
import type { SurfaceMechanisms } from '../../orchestrator/surface-keys.ts';

/** Who made the refused call (server.ts's McpCaller). */
interface Caller {
  orchestrator: Orchestrator;
  credential: string | undefined;
  requestInfo: RequestInfo;
}

const ELICITATION_MESSAGE =
  'Your agent needs a higher spending limit to finish this purchase. Open the page to see what it asks for, then ' +
  'approve or decline.';

/**
 * The refused call's answer for a client that may be elicited: throws -32042 with the buyer page's URL, or answers
 * the original error with a hint when the buyer declined lately; undefined when nothing is to be asked (another
 * refusal, an attested ceiling, or the request could not be made), and the refusal is answered as it is.
 */
export async function limitRaiseAnswer(
  caller: Caller,
  error: ErrorBody,
  mechanisms: SurfaceMechanisms,
): Promise<CallToolResult | undefined> {
  const details = error.details ?? {};
  const { permissionId, amountMinor } = details as { permissionId?: unknown; amountMinor?: unknown };
  const raisable = (RAISABLE_CODES as readonly string[]).includes(error.code) && details.scope === undefined;
  if (!raisable || typeof permissionId !== 'string' || typeof amountMinor !== 'number') return undefined;
  const asked = await caller.orchestrator.invoke({
    tool: 'request_limit_raise',
    input: { permissionId, amountMinor },
    credential: caller.credential,
    request: { ...caller.requestInfo, surface: 'mcp' },
    mechanisms,
  });
  if (!asked.ok) return undefined;
  const request = asked.output as { id: string; status: string; url: string };
  if (request.status === 'pending') {
    throw new UrlElicitationRequiredError(
      [{ mode: 'url', elicitationId: request.id, url: request.url, message: ELICITATION_MESSAGE }],
      `${error.code}: ${error.message} The buyer can raise the limit at the URL; once they approved, call the ` +
        'tool again (with a new idempotencyKey if you sent one: a refusal is kept under its key).',
    );
  }
  return {
    isError: true,
    content: [
      {
        type: 'text',
        text: `${error.code}: ${error.message} The buyer declined raising this limit; do not ask again now.`,
      },
      { type: 'text', text: JSON.stringify({ ...error, details: { ...details, limitRaise: request } }) },
    ],
  };
}

/**
 * Which credentials' MCP clients declared URL elicitation in their latest `initialize`: `/mcp` keeps no sessions, so
 * a `tools/call` is matched to its client's capabilities by its bearer (hashed; in this process, the latest 10,000).
 */
export class UrlElicitationClients {
  private readonly declared = new Map<string, boolean>();
  private readonly max: number;

  constructor(max = 10_000) {
    this.max = max;
  }

  private static key(credential: string): string {
    return createHash('sha256').update(credential).digest('base64url');
  }

  /** Records what an `initialize` request declared for the credential. */
  remember(credential: string | undefined, params: unknown): void {
    if (!credential) return;
    const caps = (params as { capabilities?: { elicitation?: { url?: unknown } } } | undefined)?.capabilities;
    const key = UrlElicitationClients.key(credential);
    this.declared.delete(key);
    this.declared.set(key, Boolean(caps?.elicitation?.url));
    if (this.declared.size > this.max) this.declared.delete(this.declared.keys().next().value!);
  }

  /** Whether the credential's client declared URL elicitation. */
  declares(credential: string | undefined): boolean {
    return credential ? (this.declared.get(UrlElicitationClients.key(credential)) ?? false) : false;
  }
}
