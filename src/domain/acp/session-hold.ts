/**
 * How a checkout session (ACP or UCP) holds its tickets: on the hot-pool batcher, like the `reserve` tool. Create and
 * update quote in the session's own transaction and commit the session waiting for that quote (`holdQuoteId`); the
 * reserve batcher then holds the places in a batch shared with every concurrent reserve of the process (one
 * conditional update of the pool row for all of them, the oversell arbiter); a last short transaction gives the session
 * its hold, or the refusal as a message. A session changed or canceled meanwhile no longer waits for that quote: the
 * hold just made is given back at once, so a session never keeps two holds.
 */
import { LockMode } from '@mikro-orm/core';
import { AcpCheckoutSession, type AcpCheckoutSessionRow } from '../../storage/entities/acp.ts';
import type { TierRow } from '../../storage/entities/catalog.ts';
import { ToolError } from '../../kernel/errors.ts';
import type { ToolContext } from '../context.ts';
import { releaseReservation } from '../purchase/reservations.ts';
import { reserveInBatch } from '../purchase/reserve-batcher.ts';
import { holdMessage } from './messages.ts';
import { quoteWithCodes } from './session-discounts.ts';
import { refusedItem } from './session-line-param.ts';
import type { AcpMessage } from './session-schema.ts';

/** A session committed while its hold is made: the quote it waits for and the messages the hold will carry. */
export interface PendingHold {
  sessionId: string;
  quoteId: string;
  messages: AcpMessage[];
}

const countryOf = (s: AcpCheckoutSessionRow): string | undefined => {
  const address = (s.fulfillmentDetails as { address?: { country?: string } } | null)?.address;
  return address?.country ? address.country.trim().toUpperCase() : undefined;
};

/** The session's delivery country (upper case), which the quote's restrictions check. */
export const sessionCountry = countryOf;

/** Records a refusal the agent can resolve as the session's message; false when it is not one (then it is thrown). */
async function refuse(ctx: ToolContext, s: AcpCheckoutSessionRow, err: unknown): Promise<boolean> {
  const message = err instanceof ToolError ? holdMessage(err, await refusedItem(ctx.em, err, s.lines)) : undefined;
  if (!message) return false;
  s.reservationId = null;
  s.holdQuoteId = null;
  s.messages = [message];
  s.status = 'not_ready_for_payment';
  return true;
}

/**
 * Quotes the session's tickets in its transaction (`ctx.em`). A refusal the agent can resolve becomes its message (and
 * no hold is made); otherwise the session is left waiting for the quote, and the caller commits it and then calls
 * `completeHold` outside any transaction. A tier that restricts card schemes is quoted with its first accepted scheme:
 * the delegated card's real scheme is checked at complete.
 */
export async function startHold(
  ctx: ToolContext,
  s: AcpCheckoutSessionRow,
  tier: TierRow,
  codes: string[] = [],
): Promise<PendingHold | undefined> {
  const rejected: AcpMessage[] = []; // discount codes refused (session-discounts.ts)
  s.reservationId = null;
  s.status = 'not_ready_for_payment';
  try {
    // Several line items: one quote for them all (session-lines.ts); one item: the one-tier quote.
    const items = s.lines?.length ? { lines: s.lines } : { tierId: tier.id, quantity: s.quantity };
    const quote = await quoteWithCodes(
      ctx,
      { ...items, country: countryOf(s), scheme: tier.allowedSchemes[0] },
      codes,
      s,
      rejected,
    );
    s.holdQuoteId = quote.id;
    s.messages = rejected;
    return { sessionId: s.id, quoteId: quote.id, messages: rejected };
  } catch (err) {
    if (await refuse(ctx, s, err)) return undefined;
    throw err;
  }
}

/**
 * Holds a committed session's quote through the reserve batcher (no transaction of the caller's is open: the batch
 * must see the quote) and gives the session its hold or its refusal. The session's own idempotency key is not the
 * batch's to write (the orchestrator stores the session's answer), so the batched call carries none.
 */
export async function completeHold(ctx: ToolContext, pending: PendingHold): Promise<void> {
  let held: { reservationId: string } | { refusal: unknown };
  try {
    const view = await reserveInBatch({ ...ctx, idempotency: undefined, shared: undefined }, pending.quoteId);
    held = { reservationId: view.reservation.id };
  } catch (err) {
    held = { refusal: err };
  }
  const thrown = await ctx.services.db.transaction(async (em) => {
    const tx = { ...ctx, em };
    const s = await em.findOneOrFail(
      AcpCheckoutSession,
      { id: pending.sessionId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (s.holdQuoteId !== pending.quoteId) {
      // Changed or canceled meanwhile: this hold is nobody's, so its places go back now.
      if ('reservationId' in held) await releaseReservation(tx, held.reservationId);
      return undefined;
    }
    s.updatedAt = ctx.clock.now();
    if ('reservationId' in held) {
      s.reservationId = held.reservationId;
      s.holdQuoteId = null;
      s.messages = pending.messages;
      s.status = 'ready_for_payment';
    } else if (!(await refuse(tx, s, held.refusal))) {
      s.holdQuoteId = null; // not a refusal the agent can resolve (a database failure): the session stays unheld
      return { error: held.refusal };
    }
    return undefined;
  });
  if (thrown) throw thrown.error;
}
