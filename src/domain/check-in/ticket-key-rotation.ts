/** Rotating the ticket-signing key within its cap: every key stays in the JWKS, so the kept keys are bounded. */
import type { ToolContext } from '../context.ts';
import { MAX_TICKET_KEYS, refuseAtLimit } from '../limits.ts';

/**
 * Retires the active ticket-signing key and activates a new one; `limit_reached` when MAX_TICKET_KEYS keys are kept
 * already. Retired keys are never dropped (a ticket signed with one must keep verifying at the door), so the cap is
 * on rotations: about one a month for eight years.
 */
export async function rotateTicketKey(ctx: Pick<ToolContext, 'services'>): Promise<string> {
  const kid = await ctx.services.ticketKeys.rotate(MAX_TICKET_KEYS);
  if (kid === undefined) refuseAtLimit(MAX_TICKET_KEYS, MAX_TICKET_KEYS, 'ticket_signing_keys');
  return kid!;
}
