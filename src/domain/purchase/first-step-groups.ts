/**
 * Grouped first steps of confirms (issue #35): the confirms that arrive while a first-step group is being written join
 * the next one. One transaction claims the calls' idempotency keys (src/storage/key-claims.ts), then runs each call's
 * unlocked first step (confirmation.ts: read the reservation, check it, move it to `confirming` with its pending
 * payment, only if it is still held and unchanged since the read), and commits once; each call then charges its
 * provider outside any transaction, and its answer is committed by a completion group (confirm-groups.ts).
 *
 * No timers: a group starts as soon as the slot is free, so a quiet process runs groups of one, with the statements of
 * an ungrouped confirm (the key claimed on its own, then the first step without a transaction). Each call keeps its own
 * outcome: a replay, a refused key or a refusal of its first step is its alone; a call whose first step decides nothing
 * (not held, changed since read) takes today's locked path alone, after the group has committed its key. An unexpected
 * database failure of a group re-runs its calls one by one. Members run in reservation-id order, so two processes'
 * groups take the reservations' row locks in the same order.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { describeError, ToolError } from '../../kernel/errors.ts';
import { Replay, type CallKey } from '../../storage/idempotency-store.ts';
import { claimKeysInFlight } from '../../storage/key-claims.ts';
import type { Services } from '../context.ts';
import type { SpineDeps } from './refunds.ts';

/** First-step groups running at once per process, and the most calls in one group. */
export const FIRST_STEP_GROUPS_IN_FLIGHT = 1;
export const FIRST_STEP_GROUP_MAX = 64;

/** One confirm's first step to run in a group. */
export interface FirstStepMember<T> {
  reservationId: string;
  /** The call's idempotency key, not claimed yet. */
  key: CallKey | undefined;
  now: Date;
  /** The call's unlocked first step on `em` (a new one when undefined); undefined when it decides nothing. */
  first: (em?: EntityManager) => Promise<T | undefined>;
}

interface Queued<T> extends FirstStepMember<T> {
  resolve: (started: T | undefined) => void;
  reject: (err: unknown) => void;
}

type Settled<T> = { ok: true; value: T | undefined } | { ok: false; error: unknown } | { alone: true };

/** The process's groups of confirms' first steps. */
export class FirstStepGroups<T = unknown> {
  private readonly deps: SpineDeps;
  private readonly queue: Queued<T>[] = [];
  private running = 0;
  private readonly counters = { groups: 0, calls: 0, largest: 0 };

  constructor(deps: SpineDeps) {
    this.deps = deps;
  }

  /** Counters for the bench and tests: groups run, calls in them, the largest group. */
  get stats(): { groups: number; calls: number; largest: number } {
    return { ...this.counters };
  }

  /** Calls waiting for a group. */
  get queued(): number {
    return this.queue.length;
  }

  /** Groups running now. */
  get inFlight(): number {
    return this.running;
  }

  /**
   * Claims `member`'s key and runs its first step in the next group; resolves with the first step's result once that
   * group has committed. A stored outcome of the key is thrown as `Replay`, a refused key as its ToolError.
   */
  submit(member: FirstStepMember<T>): Promise<T | undefined> {
    return new Promise((resolve, reject) => {
      this.queue.push({ ...member, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < FIRST_STEP_GROUPS_IN_FLIGHT && this.queue.length) {
      const group = this.queue.splice(0, FIRST_STEP_GROUP_MAX);
      this.running++;
      this.counters.groups++;
      this.counters.calls += group.length;
      this.counters.largest = Math.max(this.counters.largest, group.length);
      void this.run(group).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  /** Alone: an ungrouped confirm's statements (the key's own claim, the first step without a transaction). */
  private async alone(m: Queued<T>): Promise<void> {
    try {
      await m.key?.claim(m.now);
      m.resolve(await m.first());
    } catch (err) {
      m.reject(err);
    }
  }

  private async run(group: Queued<T>[]): Promise<void> {
    if (group.length === 1) return this.alone(group[0]!);
    group.sort((a, b) => (a.reservationId < b.reservationId ? -1 : a.reservationId > b.reservationId ? 1 : 0));
    let settled: Settled<T>[];
    let claimed: Set<number>;
    try {
      ({ settled, claimed } = await this.deps.db.transaction((em) => this.runIn(em, group)));
    } catch (err) {
      this.deps.log.warn(
        { calls: group.length, err: describeError(err) },
        'a confirm first-step group failed; its calls run alone',
      );
      for (const m of group) await this.alone(m);
      return;
    }
    for (const [i, m] of group.entries()) {
      // Committed: the key is the call's (the orchestrator settles the call's outcome with it).
      if (claimed.has(i)) m.key!.claimedTogether();
      const s = settled[i]!;
      if ('alone' in s) await this.alone(m);
      else if (s.ok) m.resolve(s.value);
      else m.reject(s.error);
    }
  }

  /** The group's transaction: the keys in one statement, then each call's first step; what each call is answered. */
  private async runIn(em: EntityManager, group: Queued<T>[]): Promise<{ settled: Settled<T>[]; claimed: Set<number> }> {
    const keyed = group.flatMap((m, i) => (m.key ? [{ i, key: m.key }] : []));
    const claims = keyed.length
      ? await claimKeysInFlight(
          em,
          keyed.map((k) => k.key),
          this.deps.clock.now(),
        )
      : [];
    const out = group.map((): Settled<T> => ({ ok: true, value: undefined }));
    const claimed = new Set<number>();
    keyed.forEach(({ i }, j) => {
      const c = claims[j];
      if (!c) out[i] = { alone: true };
      else if (c.kind === 'replay') out[i] = { ok: false, error: new Replay(c.response) };
      else if (c.kind === 'refused') out[i] = { ok: false, error: c.error };
      else claimed.add(i);
    });
    for (const [i, m] of group.entries()) {
      if (m.key && !claimed.has(i)) continue;
      try {
        out[i] = { ok: true, value: await m.first(em) };
      } catch (err) {
        // A refusal is the call's own; anything else fails the group (its calls then run alone).
        if (!(err instanceof ToolError)) throw err;
        out[i] = { ok: false, error: err };
      }
    }
    return { settled: out, claimed };
  }
}

const groups = new WeakMap<Services, FirstStepGroups>();

/** The process's first-step groups for these services (one per app; `deps` of the first call, its log included). */
export function firstStepGroups(services: Services, deps?: SpineDeps): FirstStepGroups | undefined {
  let g = groups.get(services);
  if (!g && deps) groups.set(services, (g = new FirstStepGroups(deps)));
  return g;
}
