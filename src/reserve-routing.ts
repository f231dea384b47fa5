/**
 * Composition of reserve routing (RESERVE_ROUTING=owner; src/domain/purchase/pool-owners.ts): this process's loopback
 * listener for forwarded reserves, its heartbeat row (once a second) and the router the batcher asks.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { ForwardClient, ForwardNotSent, listenForForwards } from './cluster/forward-transport.ts';
import type { Services } from './domain/context.ts';
import { ReserveRouter, useReserveRouter, type ForwardAnswer } from './domain/purchase/pool-owners.ts';
import { describeError } from './kernel/errors.ts';
import { deriveKey } from './kernel/server-secret.ts';
import { forwardedReserves } from './orchestrator/forwarded-reserves.ts';
import type { AnyTool } from './orchestrator/tool.ts';
import type { ReplaySealer } from './storage/idempotency-store.ts';
import { beat, leave } from './storage/server-processes.ts';

/** How often a routing process writes its heartbeat row. */
const BEAT_MS = 1_000;

/** A running routing: its router (tests and the bench read its counts) and its stop. */
export interface ReserveRouting {
  router: ReserveRouter;
  close(): Promise<void>;
}

/**
 * Starts routing for `services`: listens on loopback for forwards (authenticated with a key derived from the server
 * secret every process shares), beats once now (so this process knows the owner before it serves a call) and then
 * once a second. `close` removes the heartbeat row, so the others stop forwarding here at once.
 */
export async function startReserveRouting(deps: {
  services: Services;
  tool: AnyTool;
  log: Logger;
  secret: string;
  replaySealer: ReplaySealer;
}): Promise<ReserveRouting> {
  const { services, log } = deps;
  const key = deriveKey(deps.secret, 'tessera/reserve-forwarding');
  const listener = await listenForForwards('127.0.0.1', key, forwardedReserves(deps));
  const client = new ForwardClient(key);
  const id = `proc_${Date.now().toString(36)}${randomBytes(6).toString('hex')}`;
  const router = new ReserveRouter(id, {
    send: async (address, calls) => ((await client.send(address, { calls })) as { answers: ForwardAnswer[] }).answers,
    notSent: (err) => err instanceof ForwardNotSent,
  });
  const tick = async () => router.seen(await beat(services.db, id, listener.address));
  await tick();
  useReserveRouter(services, router);
  const timer = setInterval(() => {
    tick().catch((err: unknown) => log.warn({ err: describeError(err) }, 'reserve routing heartbeat failed'));
  }, BEAT_MS);
  timer.unref();
  return {
    router,
    async close() {
      clearInterval(timer);
      await leave(services.db, id).catch(() => undefined);
      await listener.close();
      client.close();
    },
  };
}
