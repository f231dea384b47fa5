/**
 * The merchant-facing side of the event-refund job: only the event's organization may start it or read its progress.
 */
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { requireMerchantEvent } from './event-access.ts';
import { eventRefundProgress, startEventRefunds, type EventRefundProgress } from './event-refunds.ts';

type Ctx = Pick<ToolContext, 'em' | 'principal' | 'clock'>;

/** Starts (or returns) the job for an event of the caller's organization. */
export async function startEventRefundsFor(
  ctx: Ctx,
  input: { eventId: string; reason: string; returnToPool: boolean },
): Promise<EventRefundProgress> {
  const event = await requireMerchantEvent(ctx.em, ctx.principal, input.eventId);
  const organizationId =
    ctx.principal.kind === 'api_key' || ctx.principal.kind === 'console_user' ? ctx.principal.organizationId : '';
  return startEventRefunds(ctx.em, { ...input, shopId: event.shopId, organizationId }, ctx.clock.now());
}

/** The job's progress for an event of the caller's organization; `not_found` when there is no job. */
export async function eventRefundsFor(ctx: Ctx, eventId: string): Promise<EventRefundProgress> {
  await requireMerchantEvent(ctx.em, ctx.principal, eventId);
  const progress = await eventRefundProgress(ctx.em, eventId);
  if (!progress) throw new ToolError('not_found', `No refunds of event ${eventId} were started.`, { eventId });
  return progress;
}
