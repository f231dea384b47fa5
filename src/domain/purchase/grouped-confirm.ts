/**
 * The `confirm` tool's path (REST, MCP, A2A): today's confirm (confirmation.ts: the pre-step, the provider call outside
 * any transaction), with the provider's answer committed in this process's group of confirms (confirm-groups.ts)
 * together with the call's idempotency key and its outcome. The tool is `transactional: 'shared'`, so the key is
 * claimed here, before anything is read for the call, as the orchestrator claims an unshared call's: with the first
 * step, in this process's first-step group (first-step-groups.ts), when the payment method is given outright and the
 * caller is not an agent; on its own otherwise.
 */
import type { ToolError } from '../../kernel/errors.ts';
import { keepsOutcome } from '../../storage/idempotency-store.ts';
import type { AttendeeRow } from '../../storage/attendee-rows.ts';
import type { ToolContext } from '../context.ts';
import { confirmGroups } from './confirm-groups.ts';
import { declineForAgent, payReservation, type PaymentPlan, type Started } from './confirmation.ts';
import { firstStepGroups, type FirstStepGroups } from './first-step-groups.ts';
import type { SpineDeps } from './refunds.ts';
import type { AppliedOutcome } from './payment-outcome.ts';
import type { PurchaseView } from './purchase-view.ts';
import { requireReservation } from './reservations.ts';

/** A confirm's input once the payment method is known. */
export interface GroupedConfirm {
  reservationId: string;
  /** Resolves the payment method (a token, a saved card, an agent's card); runs after the key's claim. */
  paymentMethod: () => Promise<string>;
  /**
   * The payment method when the input gives it outright (no saved card): nothing to resolve, so a caller who is not
   * an agent has its key claimed and its first step run in a group (first-step-groups.ts).
   */
  givenMethod?: string | undefined;
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
  const deps = { ...ctx.services, clock: ctx.clock, log: ctx.log };
  // An agent's authorization writes (its spend): it claims its key alone and takes today's path.
  const grouped = call.givenMethod !== undefined && ctx.principal.kind !== 'agent';
  if (!grouped) await ctx.idempotency?.claim(ctx.clock.now());
  const paymentMethod = grouped ? call.givenMethod! : await call.paymentMethod();
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
    ...(grouped ? { begin: beginInGroup(ctx, deps, call.reservationId) } : {}),
  });
}

/** The first step run in this process's first-step group, with the call's key claimed there. */
function beginInGroup(ctx: ToolContext, deps: SpineDeps, reservationId: string): PaymentPlan['begin'] {
  const firsts = firstStepGroups(ctx.services, deps) as FirstStepGroups<Started>;
  return (first) => firsts.submit({ reservationId, key: ctx.idempotency, now: ctx.clock.now(), first });
}
