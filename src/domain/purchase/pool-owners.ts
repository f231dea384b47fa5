/**
 * Reserve routing (RESERVE_ROUTING=owner, docs/scaling.md): the reserves of every process go to one owner process's
 * batcher, so several processes on one hot pool make one batch per lock-and-commit cycle of the pool row instead of
 * one each. The owner is the oldest live process (heartbeat rows, src/storage/server-processes.ts), so a process that
 * joins changes nothing and every process agrees as soon as it has beaten once; when the owner goes, the next oldest
 * owns. The receiving process has authenticated, validated, admitted and authorized the call; the owner only batches
 * it, and the answer, replay or refusal comes back as the owner's batch gave it. Ownership is an optimisation only:
 * the pool row's conditional update stays the oversell arbiter, so two owners for a moment only make smaller batches.
 */
import type { ErrorBody } from '../../kernel/errors.ts';
import { ToolError } from '../../kernel/errors.ts';
import type { Principal } from '../../kernel/principal.ts';
import { Replay, type StoredResponse } from '../../storage/idempotency-store.ts';
import { LIVE_FOR_SECONDS, type ProcessRow } from '../../storage/server-processes.ts';
import type { Services, ToolContext } from '../context.ts';
import type { PurchaseView } from './purchase-view.ts';

/** What a process sends its owner: the admitted call's batch entry. */
export interface ForwardedReserve {
  principal: Principal;
  quoteId: string;
  surface: ToolContext['request']['surface'];
  /** The call's idempotency key as the receiving orchestrator made it (scope, key, keyed hash, legacy hash). */
  key?: { scope: string; key: string; requestHash: string; legacyHash?: string | undefined } | undefined;
}

/** The owner's answer: the batch's view, the stored outcome to replay, or the call's refusal. */
export type ForwardAnswer =
  | { kind: 'ok'; view: PurchaseView }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'error'; body: ErrorBody };

/** How a message reaches another process (src/cluster/forward-transport.ts, given by the composition). */
export interface ReserveTransport {
  /**
   * Sends several calls in one message; resolves with their answers in order; rejects with `notSent` true when nothing
   * reached the owner (connection refused).
   */
  send(address: string, calls: ForwardedReserve[]): Promise<ForwardAnswer[]>;
  notSent(err: unknown): boolean;
}

/** Messages in flight to one owner at most; the calls arriving meanwhile go together in the next message. */
const SENDS_IN_FLIGHT = 2;
/** Calls in one message at most. */
const CALLS_PER_MESSAGE = 256;

/**
 * The calls waiting for one owner: like the batcher's queue, a message leaves as soon as a send slot is free and takes
 * every call queued meanwhile, so a process sends one loopback request per group of arrivals, not one per call.
 */
class OwnerLine {
  private readonly address: string;
  private readonly transport: ReserveTransport;
  private readonly queue: {
    call: ForwardedReserve;
    resolve: (a: ForwardAnswer) => void;
    reject: (e: unknown) => void;
  }[] = [];
  private sending = 0;

  constructor(address: string, transport: ReserveTransport) {
    this.address = address;
    this.transport = transport;
  }

  send(call: ForwardedReserve): Promise<ForwardAnswer> {
    return new Promise((resolve, reject) => {
      this.queue.push({ call, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.sending < SENDS_IN_FLIGHT && this.queue.length) {
      const group = this.queue.splice(0, CALLS_PER_MESSAGE);
      this.sending++;
      void this.transport
        .send(
          this.address,
          group.map((g) => g.call),
        )
        .then(
          (answers) =>
            group.forEach((g, i) => (answers[i] ? g.resolve(answers[i]) : g.reject(new Error('answer missing')))),
          (err: unknown) => group.forEach((g) => g.reject(err)),
        )
        .finally(() => {
          this.sending--;
          this.pump();
        });
    }
  }
}

/**
 * Which live process owns the reserves: the oldest live one not seen gone (the rows come oldest first). `gone`: by
 * process, the beat (ms) it must reach before it is trusted again.
 */
export function ownerOf(live: readonly ProcessRow[], gone: ReadonlyMap<string, number>): ProcessRow | undefined {
  return live.find((p) => p.beatAt.getTime() >= (gone.get(p.id) ?? 0));
}

/** One process's view of the owner, refreshed by its heartbeat, and its forwarding. */
export class ReserveRouter {
  readonly id: string;
  private readonly transport: ReserveTransport;
  private live: ProcessRow[] = [];
  /**
   * Processes whose forward failed, with the beat they must reach to be trusted again: one a liveness window after the
   * beat known then, since the last beat of a process that died may come after the one this process had read. A dead
   * one is no longer live by then; a live one is back after a few beats.
   */
  private readonly gone = new Map<string, number>();
  /** Each owner's line of calls waiting to be sent, by address. */
  private readonly lines = new Map<string, OwnerLine>();
  /** Calls this process forwarded, and calls it ran for others (`/metrics`: src/http/routing-metrics.ts). */
  readonly counts = { forwarded: 0, received: 0 };

  constructor(id: string, transport: ReserveTransport) {
    this.id = id;
    this.transport = transport;
  }

  /** The live processes as the last heartbeat read them (oldest first, this one included). */
  seen(live: ProcessRow[]): void {
    this.live = live;
    for (const [id, until] of this.gone)
      if (!live.some((p) => p.id === id && p.beatAt.getTime() < until)) this.gone.delete(id);
  }

  /** The owner now: this process (undefined) or another one. */
  owner(): ProcessRow | undefined {
    const o = ownerOf(this.live, this.gone);
    return o && o.id !== this.id ? o : undefined;
  }

  /**
   * Sends the call to the owner and answers as its batch did. A refused connection (nothing sent) runs the call here;
   * a lost answer (the owner died or stalled after it may have committed) is 503 `unavailable` with retryAfter: a retry
   * with the same key replays what was stored, or runs anew if nothing was.
   */
  async forward(owner: ProcessRow, ctx: ToolContext, quoteId: string, here: () => Promise<PurchaseView>) {
    // The caller's rate-limit charge is awaited first: its refusal is the call's answer, as in a local batch.
    if (ctx.shared?.charged) await ctx.shared.charged;
    const k = ctx.idempotency;
    const message: ForwardedReserve = {
      principal: ctx.principal,
      quoteId,
      surface: ctx.request.surface,
      key: k && { scope: k.scope, key: k.key, requestHash: k.requestHash, legacyHash: k.legacyHash?.() },
    };
    let answer: ForwardAnswer;
    try {
      this.counts.forwarded++;
      let line = this.lines.get(owner.address);
      if (!line) this.lines.set(owner.address, (line = new OwnerLine(owner.address, this.transport)));
      answer = await line.send(message);
    } catch (err) {
      this.gone.set(owner.id, owner.beatAt.getTime() + LIVE_FOR_SECONDS * 1000);
      if (this.transport.notSent(err)) return here();
      throw new ToolError(
        'unavailable',
        'The reserve could not be confirmed; retry with the same idempotency key.',
        undefined,
        1,
      );
    }
    if (answer.kind === 'ok') return answer.view;
    if (answer.kind === 'replay') throw new Replay(answer.response);
    const { code, message: text, details, retryAfter } = answer.body;
    throw new ToolError(code, text, details, retryAfter);
  }
}

const routers = new WeakMap<Services, ReserveRouter>();
const received = new WeakSet<ToolContext>();

/** Turns routing on for these services (the composition, when RESERVE_ROUTING=owner). */
export function useReserveRouter(services: Services, router: ReserveRouter): void {
  routers.set(services, router);
}

/** The router of these services, if routing is on. */
export function reserveRouterOf(services: Services): ReserveRouter | undefined {
  return routers.get(services);
}

/** Marks a context made for a call another process forwarded: it runs here, never forwarded again. */
export function receivedFromForwarder(ctx: ToolContext): ToolContext {
  received.add(ctx);
  const r = routers.get(ctx.services);
  if (r) r.counts.received++;
  return ctx;
}

/**
 * The batcher's hook (ReserveBatcher.submit): the call's answer through its owner, or undefined when this process runs
 * it (routing off, this process the owner, or a call forwarded to it).
 */
export function routeReserve(
  ctx: ToolContext,
  quoteId: string,
  here: () => Promise<PurchaseView>,
): Promise<PurchaseView> | undefined {
  const router = routers.get(ctx.services);
  if (!router || received.has(ctx)) return undefined;
  const owner = router.owner();
  return owner ? router.forward(owner, ctx, quoteId, here) : undefined;
}
