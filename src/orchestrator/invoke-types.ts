/**
 * What one call through the orchestrator (src/orchestrator/invoke.ts) takes and answers, what it is built with, and
 * the small pure helpers it uses: a refusal's result, and whether a tool's answers hold a secret.
 */
import type { Logger } from 'pino';
import type { ZodType } from 'zod';
import type { RequestInfo, Services } from '../domain/context.ts';
import type { ErrorBody, ToolError } from '../kernel/errors.ts';
import type { ReplaySealer } from '../storage/idempotency-store.ts';
import { secretPaths } from '../kernel/secret-fields.ts';
import type { Principal } from '../kernel/principal.ts';
import type { AnyTool } from './tool.ts';
import type { SurfaceMechanisms } from './surface-keys.ts';
import type { WebSessionKind } from '../storage/web-sessions.ts';

export interface InvokeRequest {
  tool: string;
  input: unknown;
  /** The bearer credential as presented (without the `Bearer ` prefix), if any. */
  credential?: string | undefined;
  /**
   * The credential is the reference of a page session of this kind, read from its HttpOnly cookie by REST after the
   * page asked for it (docs/console.md, "Sessions"); no other surface sets it.
   */
  pageSession?: WebSessionKind | undefined;
  idempotencyKey?: string | undefined;
  request: RequestInfo;
  /** How this surface carries keys and credentials (default: REST's); refusals name them. */
  mechanisms?: SurfaceMechanisms;
}

export type InvokeResult =
  | {
      ok: true;
      tool: AnyTool;
      status: number;
      output: Record<string, unknown>;
      replayed: boolean;
      principal: Principal;
    }
  | { ok: false; tool: AnyTool | undefined; status: number; error: ErrorBody; replayed: boolean };

/** A refusal's result: `error` with its status. */
export const refusal = (tool: AnyTool | undefined, error: ToolError): InvokeResult => ({
  ok: false,
  tool,
  status: error.status,
  error: error.toBody(),
  replayed: false,
});

/**
 * `surface`: where the credential was presented (an OAuth access token is accepted only on the MCP endpoint it was
 * issued for).
 */
export type Authenticator = (
  credential: string | undefined,
  surface?: RequestInfo['surface'],
  pageSession?: WebSessionKind,
) => Promise<Principal>;

/** Opens page sessions (HttpOnly cookies) for session JWTs the server issued: REST's sign-in answers to its pages. */
export interface PageSessionIssuer {
  openPageSession(kind: WebSessionKind, jwt: string, replaces?: string): Promise<{ token: string; expiresAt: Date }>;
}

export interface OrchestratorDeps {
  tools: readonly AnyTool[];
  services: Services;
  authenticate: Authenticator;
  log: Logger;
  /**
   * Seals stored answers that carry a secret field (`secret(...)` in the tool's output), replayed by idempotency key.
   */
  replaySealer: ReplaySealer;
  /**
   * Keys the stored fingerprint of a request (an HMAC under a sub-key of the server secret), so that a request's
   * secrets (a card number and CVC, a sign-in token) cannot be searched for offline from the stored hash.
   */
  requestHash: (canonical: string) => string;
  /** Opens page sessions for the REST surface's pages (absent: pages get no cookie). */
  pageSessions?: PageSessionIssuer;
}

/** Whether a tool's answers carry a secret field (kept sealed when stored for replay); worked out once per tool. */
const secretOutputs = new WeakMap<AnyTool, boolean>();
export function holdsSecret(tool: AnyTool): boolean {
  let holds = secretOutputs.get(tool);
  if (holds === undefined) secretOutputs.set(tool, (holds = secretPaths(tool.output as ZodType, 'output').length > 0));
  return holds;
}
