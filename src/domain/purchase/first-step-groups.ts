/**
 * Grouped first steps of confirms (issue #35): the confirms that arrive while a first-step group is being written join
 * the next one. One transaction claims the calls' idempotency keys (src/storage/key-claims.ts), then runs the calls'
 * unlocked first steps together (confirmation.ts: read the reservation, check it, move it to `confirming` with its
 * pending payment, only if it is still held and unchanged since the read), their reads in one statement and their
 * writes in one (src/storage/first-step-batch.ts), and commits once; each call then charges its provider outside any
 * transaction, and its answer is committed by a completion group (confirm-groups.ts).
 *
 * No timers: a group starts at the end of the event loop's turn, or as soon as the slot is free, so a quiet process
 * runs groups of one, with the statements of an ungrouped confirm (the key claimed on its own, then the first step
 * without a transaction). Each call keeps its own outcome: a replay, a refused key or a refusal of its first step is
 * its alone; a call whose first step decides nothing (not held, changed since read) takes today's locked path alone,
 * after the group has committed its key. An unexpected database failure of a group re-runs its calls one by one (a
 * deadlock with another process's group included).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { describeError, ToolError } from '../../kernel/errors.ts';
import { Replay, type CallKey } from '../../storage/idempotency-store.ts';
import { claimKeysInFlight } from '../../storage/key-claims.ts';
import type { PendingPaymentWrite, ReservationForPayment } from '../../storage/confirm-statements.ts';
import { insertPendingPayments, readReservationsForPayment } from '../../storage/first-step-batch.ts';
import type { FirstStepIo } from './confirmation.ts';
import type { Services } from '../context.ts';
import type { SpineDeps } from './refunds.ts';
import { CallGroups } from '../../kernel/call-groups.ts';

/** First-step groups running at once per process, and the most calls in one group. */
export const FIRST_STEP_GROUPS_IN_FLIGHT = 1;
export const FIRST_STEP_GROUP_MAX = 64;

/** One confirm's first step to run in a group. */
export interface FirstStepMember<T> {
  reservationId: string;
  /** The call's idempotency key, not claimed yet. */
  key: CallKey | undefined;
  now: Date;
  /** The call's unlocked first step, in a group's `io` (alone without); undefined when it decides nothing. */
  first: (io?: FirstStepIo) => Promise<T | undefined>;
}

interface Queued<T> extends FirstStepMember<T> {
  resolve: (started: T | undefined) => void;
  reject: (err: unknown) => void;
}

type Settled<T> = { ok: true; value: T | undefined } | { ok: false; error: unknown } | { alone: true };

/** The process's groups of confirms' first steps. */
export class FirstStepGroups<T = unknown> extends CallGroups<FirstStepMember<T>, T | undefined> {
  private readonly deps: SpineDeps;

  constructor(deps: SpineDeps) {
    super(FIRST_STEP_GROUP_MAX, FIRST_STEP_GROUPS_IN_FLIGHT);
    this.deps = deps;
  }

  /**
   * Claims `member`'s key and runs its first step in the next group; resolves with the first step's result once that
   * group has committed. A stored outcome of the key is thrown as `Replay`, a refused key as its ToolError.
   */
  submit(member: FirstStepMember<T>): Promise<T | undefined> {
    return this.enqueue(member);
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

  protected async run(group: Queued<T>[]): Promise<void> {
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
    const live = group.flatMap((m, i) => (m.key && !claimed.has(i) ? [] : [{ m, i }]));
    const results = await runTogether(
      em,
      live.map((l) => l.m.first),
    );
    results.forEach((r, j) => {
      const i = live[j]!.i;
      if (r.status === 'fulfilled') out[i] = { ok: true, value: r.value };
      // A refusal is the call's own; anything else fails the group (its calls then run alone).
      else if (r.reason instanceof ToolError) out[i] = { ok: false, error: r.reason };
      else throw r.reason;
    });
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

/** A promise and its settling functions. */
function deferred<V>(): { promise: Promise<V>; resolve: (v: V) => void; reject: (err: unknown) => void } {
  let resolve!: (v: V) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<V>((res, rej) => ((resolve = res), (reject = rej)));
  promise.catch(() => undefined); // a step that ended early never awaits its answer
  return { promise, resolve, reject };
}

/**
 * Runs `firsts` together on `em`'s transaction: once each has asked for its reservation (or ended), one statement reads
 * them all; once each has offered its pending payment (or ended), one statement writes them (the same reservation
 * twice: the first offer only; the other writes nothing and takes the locked path). Each step's own result, in order.
 */
async function runTogether<T>(
  em: EntityManager,
  firsts: ((io?: FirstStepIo) => Promise<T | undefined>)[],
): Promise<PromiseSettledResult<T | undefined>[]> {
  const asked = firsts.map(() => deferred<string | undefined>());
  const read = firsts.map(() => deferred<ReservationForPayment | undefined>());
  const offered = firsts.map(() => deferred<PendingPaymentWrite | undefined>());
  const inserted = firsts.map(() => deferred<number | undefined>());
  const steps = firsts.map((first, j) => {
    const io: FirstStepIo = {
      em,
      read: (id) => (asked[j]!.resolve(id), read[j]!.promise),
      insert: (w) => (offered[j]!.resolve(w), inserted[j]!.promise),
    };
    // Whichever way it ends, it asks nothing more.
    return first(io).finally(() => (asked[j]!.resolve(undefined), offered[j]!.resolve(undefined)));
  });
  const settled = Promise.allSettled(steps);
  try {
    const ids = await Promise.all(asked.map((d) => d.promise));
    const found = await readReservationsForPayment(em, [...new Set(ids.filter((id) => id !== undefined))]);
    ids.forEach((id, j) => read[j]!.resolve(id === undefined ? undefined : found.get(id)));
    const writes = await Promise.all(offered.map((d) => d.promise));
    const first = new Map<string, number>();
    writes.forEach((w, j) => {
      if (w && !first.has(w.reservationId)) first.set(w.reservationId, j);
    });
    const attempts = await insertPendingPayments(
      em,
      [...first.values()].map((j) => writes[j]!),
    );
    writes.forEach((w, j) =>
      inserted[j]!.resolve(w && first.get(w.reservationId) === j ? attempts.get(w.reservationId) : undefined),
    );
  } catch (err) {
    for (const d of [...read, ...inserted]) d.reject(err);
    await settled;
    throw err;
  }
  return settled;
}
