/**
 * Charges a route makes itself, beyond the middleware's (rate-limit.ts): a route that acts without checking the
 * request's credential, and the document links, which have a budget of their own per address.
 */
import type { Context } from 'koa';
import type { RateGate } from '../domain/context.ts';
import { ToolError } from '../kernel/errors.ts';
import { RATE_GATE_STATE, sendError } from './http.ts';
import type { RequestGate } from './rate-limit.ts';

/**
 * For a route that acts without checking the request's credential: charges the address now unless it was charged
 * already (a request without a credential); a spent address answers 429 here. Returns whether the route may go on.
 */
export async function chargeUnverified(ctx: Context, strict = false): Promise<boolean> {
  try {
    await (ctx.state[RATE_GATE_STATE] as RateGate | undefined)?.charge(undefined, strict);
    return true;
  } catch (err) {
    if (!(err instanceof ToolError)) throw err;
    sendError(ctx, err.status, err.toBody());
    return false;
  }
}

/**
 * For a document link (a tickets PDF, a wallet pass, a receipt or invoice): charges the address's document budget, on
 * top of its usual charge, before anything is rendered; a spent budget answers 429 `rate_limited` with Retry-After.
 * Returns whether the route may go on.
 */
export async function chargeDocument(ctx: Context): Promise<boolean> {
  try {
    await (ctx.state[RATE_GATE_STATE] as RequestGate | undefined)?.document();
    return true;
  } catch (err) {
    if (!(err instanceof ToolError)) throw err;
    sendError(ctx, err.status, err.toBody());
    return false;
  }
}
