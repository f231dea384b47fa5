/** Decides, from a tool's declared auth alone, whether a principal may call it. */
import { ToolError } from '../kernel/errors.ts';
import type { Principal } from '../kernel/principal.ts';
import type { AnyTool } from './tool.ts';

/**
 * Throws `unauthenticated`, `forbidden` or `insufficient_scope`; returns when the call may proceed. `credentialHint`
 * names how a credential is presented on the caller's surface ("an Authorization: Bearer header").
 */
export function authorize(tool: AnyTool, principal: Principal, credentialHint?: string): void {
  const auth = tool.auth;
  if (auth.public) return;
  if (principal.kind === 'anonymous') {
    throw new ToolError(
      'unauthenticated',
      credentialHint ? `A valid credential is required: send ${credentialHint}.` : undefined,
    );
  }
  if (!auth.principals.includes(principal.kind)) {
    throw new ToolError('forbidden', `A ${principal.kind.replace('_', ' ')} credential may not call ${tool.name}.`);
  }
  if (principal.kind === 'api_key' && auth.scopes?.length) {
    const missing = auth.scopes.filter((s) => !principal.scopes.includes(s));
    if (missing.length) {
      throw new ToolError('insufficient_scope', `This API key lacks the scope ${missing.join(', ')}.`, {
        required: [...auth.scopes],
        missing,
      });
    }
  }
  if (principal.kind === 'console_user' && auth.roles && !auth.roles.includes(principal.role)) {
    throw new ToolError('forbidden', `The ${principal.role} role may not call ${tool.name}.`, { role: principal.role });
  }
  // A key acts with no more than its minter's current role (keyAuthority): an integrator's key, no owner-only tool.
  if (principal.kind === 'api_key' && principal.role && auth.roles && !auth.roles.includes(principal.role)) {
    const message = `A key minted by an ${principal.role} may not call ${tool.name}.`;
    throw new ToolError('forbidden', message, { role: principal.role });
  }
  if (principal.kind === 'agent' && principal.permissionId && auth.outsidePermission) {
    throw new ToolError(
      'forbidden',
      `An OAuth access token acts inside the buyer's permission only; it may not call ${tool.name}.`,
      {
        permissionId: principal.permissionId,
      },
    );
  }
  if (
    principal.kind === 'buyer' &&
    auth.fullBuyer &&
    principal.mode !== 'full' &&
    !(auth.attestedBuyer && principal.attested)
  ) {
    throw new ToolError('forbidden', 'A bounded buyer session cannot create or widen spending authority.', {
      sessionMode: principal.mode,
    });
  }
}

/** Whether the principal may call the tool: the same decision as `authorize`, for listing what a caller may call. */
export function mayCall(tool: AnyTool, principal: Principal): boolean {
  try {
    authorize(tool, principal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the principal's tool lists carry the tool: it may call it, and the tool is listed for its kind
 * (`auth.listed`, default every kind). What a caller is shown, never what it may call.
 */
export function mayList(tool: AnyTool, principal: Principal): boolean {
  const listed = tool.auth.listed;
  return (!listed || listed.includes(principal.kind)) && mayCall(tool, principal);
}
