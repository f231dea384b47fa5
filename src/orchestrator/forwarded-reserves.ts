/**
 * The owner's side of reserve routing (src/domain/purchase/pool-owners.ts): a reserve another process received,
 * authenticated, validated, admitted and authorized is run in this process's batch with the context and key the
 * orchestrator makes for a local call, and answered as the batch decided (a view, a replay or a refusal).
 */
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Services } from '../domain/context.ts';
import type { ForwardAnswer, ForwardedReserve } from '../domain/purchase/pool-owners.ts';
import { receivedFromForwarder } from '../domain/purchase/pool-owners.ts';
import { reserveBatcher } from '../domain/purchase/reserve-batcher.ts';
import { describeError, ToolError } from '../kernel/errors.ts';
import type { Principal } from '../kernel/principal.ts';
import { IdempotencyStore, Replay, type ReplaySealer } from '../storage/idempotency-store.ts';
import { CallParts } from './call-parts.ts';
import { holdsSecret } from './invoke-types.ts';
import type { AnyTool } from './tool.ts';

const Call = z.strictObject({
  principal: z.looseObject({ kind: z.string() }),
  quoteId: z.string().min(1).max(255),
  surface: z.enum(['rest', 'mcp', 'a2a', 'internal']),
  key: z
    .strictObject({
      scope: z.string(),
      key: z.string(),
      requestHash: z.string(),
      legacyHash: z.string().optional(),
    })
    .optional(),
});
const Message = z.strictObject({ calls: z.array(z.unknown()).min(1).max(1000) });

/**
 * Makes the handler of forwarded reserves for `tool` (the `reserve` tool): each call of a message (already MAC-checked
 * by the transport) becomes a call of this process's batcher, answered in order; never throws.
 */
export function forwardedReserves(deps: {
  tool: AnyTool;
  services: Services;
  log: Logger;
  replaySealer: ReplaySealer;
}): (message: unknown) => Promise<{ answers: ForwardAnswer[] }> {
  const { tool, services, log } = deps;
  const parts = new CallParts(services, log);
  const store = new IdempotencyStore(services.db, deps.replaySealer);
  const one = async (raw: unknown): Promise<ForwardAnswer> => {
    const parsed = Call.safeParse(raw);
    if (!parsed.success) return { kind: 'error', body: new ToolError('invalid_input').toBody() };
    const m = parsed.data as ForwardedReserve;
    const principal = m.principal as Principal;
    const { makeCtx, finish } = parts.for(tool, principal, {
      request: { surface: m.surface },
      idempotencyKey: m.key?.key,
    });
    const legacy = m.key?.legacyHash;
    const idempotency = m.key
      ? store.forCall({ ...m.key, legacyHash: legacy === undefined ? undefined : () => legacy }, holdsSecret(tool))
      : undefined;
    const ctx = receivedFromForwarder(makeCtx(() => services.db.fork(), { idempotency, shared: { finish } }));
    try {
      const batcher = reserveBatcher(services);
      batcher.check(); // the owner's queue is the one that fills: its admission refuses for load (429), as locally
      return { kind: 'ok', view: await batcher.submit(ctx, m.quoteId) };
    } catch (err) {
      if (err instanceof Replay) return { kind: 'replay', response: err.response };
      if (err instanceof ToolError) return { kind: 'error', body: err.toBody() };
      const mapped = services.db.mapDatabaseError(err);
      if (mapped) return { kind: 'error', body: mapped.toBody() };
      log.error({ tool: tool.name, err: describeError(err) }, 'unexpected error in a forwarded reserve');
      return { kind: 'error', body: new ToolError('internal_error').toBody() };
    }
  };
  // The calls of one message are submitted together, so they join the same batch; each gets its own answer.
  return async (raw) => {
    const parsed = Message.safeParse(raw);
    const calls = parsed.success ? parsed.data.calls : [];
    return { answers: await Promise.all(calls.map(one)) };
  };
}
