/**
 * The `confirm` tool's path (REST, MCP, A2A): today's confirm (confirmation.ts: the pre-step, the provider call outside
 * any transaction), with the provider's answer committed in this process's group of confirms (confirm-groups.ts)
 * together with the call's idempotency key and its outcome. The tool is `transactional: 'shared'`, so the key is
 * claimed here, before anything is read for the call, as the orchestrator claims an unshared call's.
 */
import type { ToolError } from '../../kernel/errors.ts';
import { keepsOutcome } from '../../storage/idempotency-store.ts';
import type { AttendeeRow } from '../../storage/attendee-rows.ts';
import type { ToolContext } from '../context.ts';
import { confirmGroups } from './confirm-groups.ts';
import { declineForAgent, payReservation } from './confirmation.ts';
import type { AppliedOutcome } from './payment-outcome.ts';
import type { PurchaseView } from './purchase-view.ts';
import { requireReservation } from './reservations.ts';

/** A confirm's input once the payment method is known. */
export interface GroupedConfirm {
  reservationId: string;
  /** Resolves the payment method (a token, a saved card, an agent's card); runs after the key's claim. */
  paymentMethod: () => Promise<string>;
  attendees?: AttendeeRow[] | undefined;
  /** The tool's answer for a view (what the key stores, before the output check `ctx.shared.finish`). */
  present: (view: PurchaseView) => unknown;
}

/**
 * Confirms a reservation with its answer committed in a group; returns the purchase view (payment pending ⇒ 202). A
 * replay of the key is thrown as the storage's `Replay`, as the orchestrator's own claim throws it.
 */
export async function confirmInGroup(ctx: ToolContext, call: GroupedConfirm): Promise<PurchaseView> {
  await ctx.shared?.charged; // the rate-limit charge decides before anything is written or replayed
  await ctx.idempotency?.claim(ctx.clock.now());
  const paymentMethod = await call.paymentMethod();
  const deps = { ...ctx.services, clock: ctx.clock, log: ctx.log };
  const groups = confirmGroups(ctx.services, deps)!;
  const key = ctx.idempotency;
  const shared = ctx.shared;
  const keyRow = (applied: AppliedOutcome) => {
    if (!key || !shared) return undefined;
    if (!applied.error) {
      const { status, output } = shared.finish(call.present(applied.view));
      return key.rowWith({ status, body: output });
    }
    const error: ToolError = ctx.principal.kind === 'agent' ? declineForAgent(applied.error) : applied.error;
    return keepsOutcome(error.status, error.code)
      ? key.rowWith({ status: error.status, body: error.toBody() })
      : undefined;
  };
  return payReservation(ctx, {
    reservation: (em) => requireReservation(em, ctx.principal, call.reservationId, { lock: true }),
    reservationId: call.reservationId,
    paymentMethod,
    attendees: call.attendees,
    complete: (_deps, paymentId, outcome, now, known) =>
      groups.submit({ paymentId, outcome, now, known, keyRow, stored: () => key?.committed() }),
  });
}
