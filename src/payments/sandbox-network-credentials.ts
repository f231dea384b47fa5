/** The sandbox provider's network credentials: which mandate `credentialRef`s it charges, and with what outcome. */
import type { SandboxMethod } from './sandbox-methods.ts';

/** Every sandbox network credential starts with this; anything else is unknown to the sandbox. */
export const SANDBOX_CREDENTIAL_PREFIX = 'sbx-token-';

export type SandboxCredential = Omit<SandboxMethod, 'cardNumber'>;

/** The documented behaviours, matched on what follows the prefix (first match wins); otherwise success at once. */
const BEHAVIOURS: ReadonlyArray<readonly [string, SandboxCredential]> = [
  ['declined', { scheme: 'visa', timing: 'sync', outcome: 'failed', failureCode: 'payment_declined' }],
  ['insufficient-funds', { scheme: 'visa', timing: 'sync', outcome: 'failed', failureCode: 'insufficient_funds' }],
  ['async-failure', { scheme: 'visa', timing: 'async', outcome: 'failed', failureCode: 'payment_declined' }],
  ['async', { scheme: 'visa', timing: 'async', outcome: 'succeeded' }],
];
const SUCCEEDS: SandboxCredential = { scheme: 'visa', timing: 'sync', outcome: 'succeeded' };

/**
 * How the sandbox treats a mandate's `credentialRef` (docs/signed-mandates.md): `sbx-token-declined…` and
 * `sbx-token-insufficient-funds…` are declined, `sbx-token-async-failure…` and `sbx-token-async…` settle
 * later (failure / success), every other `sbx-token-…` succeeds at once. Sandbox network tokens are visa.
 * Undefined for a reference without the prefix.
 */
export function sandboxCredential(credentialRef: string): SandboxCredential | undefined {
  if (!credentialRef.startsWith(SANDBOX_CREDENTIAL_PREFIX)) return undefined;
  const rest = credentialRef.slice(SANDBOX_CREDENTIAL_PREFIX.length);
  return BEHAVIOURS.find(([prefix]) => rest.startsWith(prefix))?.[1] ?? SUCCEEDS;
}
