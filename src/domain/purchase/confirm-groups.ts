/**
 * Grouped confirm completions (issue #35). A confirm commits its provider's answer with its own statement, and its key's
 * outcome with another: at 64 clients those per-call commits, not the provider, are what a confirm waits on
 * (docs/performance-log.md, "Grouped confirms"). Here the answers of the calls whose provider has answered while an
 * earlier group was being written are written together: one transaction applies each call's answer on its own (a
 * success completes its purchase, a decline gives its hold back, an asynchronous answer leaves it pending, no answer
 * leaves it unknown), stores each call's idempotency key with its own outcome, and commits once.
 *
 * Never a transaction across a provider call: a call joins a group only once its provider has answered, so a slow
 * answer delays no one else's completion. No timers: a group starts at the end of the event loop's turn, or as soon as
 * a slot is free, so a quiet process runs groups of one, with the statements of an ungrouped confirm (`commitOutcome`,
 * the key settled by the orchestrator). Each call keeps its own outcome and key; an unexpected database failure of a
 * group re-runs its calls one by one, so it fails only the call it belongs to. One group per process, not per pool: a
 * confirm does not touch the pool row, so the calls of any pools share one commit. Members are applied in payment-id
 * order, so two processes' groups lock the rows they share in the same order.
 */
import { describeError } from '../../kernel/errors.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChargeResult } from '../../payments/provider.ts';
import { writeCompletions } from '../../storage/completion-batch.ts';
import type { CompletionWrite } from '../../storage/completion-statements.ts';
import type { PurchaseState } from '../../storage/completion-statements.ts';
import type { KeyWrite } from '../../storage/idempotency-store.ts';
import { storeKeyOutcomes } from '../../storage/key-outcomes.ts';
import type { Services } from '../context.ts';
import { applyOutcome, commitOutcome, type AppliedOutcome } from './payment-outcome.ts';
import { completePaidPurchase, type PaidPurchase } from './paid-purchase.ts';
import type { SpineDeps } from './refunds.ts';
import { CallGroups } from '../../kernel/call-groups.ts';

/** Groups running at once per process, and the most calls in one group. */
export const CONFIRM_GROUPS_IN_FLIGHT = 1;
export const CONFIRM_GROUP_MAX = 64;

/** One call's provider answer to commit, and what its key stores once it is applied. */
export interface GroupMember {
  paymentId: string;
  outcome: ChargeResult | undefined;
  now: Date;
  /** The payment's state as the call has just written it, when it has. */
  known?: PurchaseState | undefined;
  /**
   * The row the call's key is stored with for this applied outcome (`CallKey.rowWith`), or undefined when the call
   * has no key or the outcome is not kept; `stored` is told once it has committed (`CallKey.committed`).
   */
  keyRow: (applied: AppliedOutcome) => KeyWrite | undefined;
  stored: () => void;
}

interface Queued extends GroupMember {
  resolve: (applied: AppliedOutcome) => void;
  reject: (err: unknown) => void;
}

/** The process's groups of confirm completions. */
export class ConfirmGroups extends CallGroups<GroupMember, AppliedOutcome> {
  private readonly deps: SpineDeps;

  constructor(deps: SpineDeps) {
    super(CONFIRM_GROUP_MAX, CONFIRM_GROUPS_IN_FLIGHT);
    this.deps = deps;
  }

  /** Commits `member`'s answer in the next group; resolves with it once that group has committed. */
  submit(member: GroupMember): Promise<AppliedOutcome> {
    return this.enqueue(member);
  }

  protected async run(group: Queued[]): Promise<void> {
    if (group.length === 1) {
      const m = group[0]!;
      // Alone: an ungrouped confirm's statements; the orchestrator settles the key.
      await commitOutcome(this.deps, m.paymentId, m.outcome, m.now, m.known).then(m.resolve, m.reject);
      return;
    }
    group.sort((a, b) => (a.paymentId < b.paymentId ? -1 : a.paymentId > b.paymentId ? 1 : 0));
    let applied: AppliedOutcome[];
    let keyed: boolean[];
    try {
      ({ applied, keyed } = await this.deps.db.transaction(async (em) => {
        const paid = await this.completeSuccesses(em, group);
        const out: AppliedOutcome[] = [];
        for (const [i, m] of group.entries()) {
          const p = paid[i];
          // A decline, a pending or unknown answer, a success not in the common case (or the same payment again, which
          // finds the first's completion and answers it) decides under its locks, in the group's transaction.
          out.push(
            p
              ? { view: p.view, completed: true, mailQueued: p.mailQueued }
              : await applyOutcome(em, m.paymentId, m.outcome, m.now, this.deps),
          );
        }
        const rows = group.map((m, i) => m.keyRow(out[i]!));
        await storeKeyOutcomes(
          em,
          rows.filter((r): r is KeyWrite => r !== undefined),
        );
        return { applied: out, keyed: rows.map((r) => r !== undefined) };
      }));
    } catch (err) {
      this.deps.log.warn(
        { calls: group.length, err: describeError(err) },
        'a confirm group failed; its calls run alone',
      );
      // An unexpected failure is not pinned on the whole group: each call runs alone and keeps its own outcome.
      for (const m of group) await this.run([m]);
      return;
    }
    group.forEach((m, i) => {
      if (keyed[i]) m.stored();
      m.resolve(applied[i]!);
    });
  }

  /**
   * The group's successes in the common case (paid-purchase.ts), each payment once, their completions written in one
   * statement (writeCompletions); per member, its completed purchase, or undefined when another path decides.
   */
  private async completeSuccesses(em: EntityManager, group: Queued[]): Promise<(PaidPurchase | undefined)[]> {
    const seen = new Set<string>();
    const calls = group.map((m) => {
      if (m.outcome?.status !== 'succeeded' || seen.has(m.paymentId)) return undefined;
      seen.add(m.paymentId);
      let offer!: (w: CompletionWrite | undefined) => void;
      const offered = new Promise<CompletionWrite | undefined>((r) => (offer = r));
      let answer!: (wrote: boolean) => void;
      const wrote = new Promise<boolean>((r) => (answer = r));
      const { reference } = m.outcome;
      const write = (w: CompletionWrite) => (offer(w), wrote);
      const result = completePaidPurchase(em, m.paymentId, reference, m.now, this.deps.ticketKeys, m.known, write);
      // Whichever way it ends without writing, it offers nothing.
      const settled = result.then(
        (r) => (offer(undefined), r),
        (err: unknown) => (offer(undefined), Promise.reject(err as Error)),
      );
      settled.catch(() => undefined); // awaited below, unless the group's statement fails first
      return { offered, answer, settled };
    });
    const offers = await Promise.all(calls.map((c) => c?.offered ?? Promise.resolve(undefined)));
    const written = await writeCompletions(
      em,
      offers.filter((w): w is CompletionWrite => w !== undefined),
    );
    calls.forEach((c, i) => c?.answer(offers[i] !== undefined && written.has(offers[i].payment.id)));
    return Promise.all(calls.map((c) => c?.settled ?? Promise.resolve(undefined)));
  }
}

const groups = new WeakMap<Services, ConfirmGroups>();

/** The process's confirm groups for these services (one per app; `deps` of the first call, its log included). */
export function confirmGroups(services: Services, deps?: SpineDeps): ConfirmGroups | undefined {
  let g = groups.get(services);
  if (!g && deps) groups.set(services, (g = new ConfirmGroups(deps)));
  return g;
}
