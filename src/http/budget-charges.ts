/**
 * How the rate limits' budgets are charged (src/http/rate-limit.ts): one counter row per budget and key in PostgreSQL,
 * shared by every server process, and the charges of one key grouped so a busy caller does not make its counter row a
 * second hot row.
 *
 * - **Grouped.** Charges arriving while their key's statement runs wait, and the next statement charges all of them at
 *   once (`consume(key, n)`); the count it returns decides each charge in arrival order.
 * - **Points taken ahead (leases).** A key that had several charges waiting at once is busy: its statement also takes
 *   up to `leaseFor(limit)` points more (a hundredth of the budget, at most 64), which this process then gives to that
 *   key's next charges without a statement, until they are spent or the counter's window ends. The counter counts them
 *   as used when taken, so the budget is never exceeded, by any number of processes. One process admits exactly what it
 *   would without them: the points it holds serve only its own later charges of that key. With several processes a
 *   busy caller can be refused by one while another still holds points taken ahead: at most a hundredth of the budget
 *   per other process, in one window. A budget under 100 points or a quiet key never takes points ahead.
 */
import { Counter, type Registry } from 'prom-client';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { ToolError } from '../kernel/errors.ts';

/**
 * What one budget said about a charge: its policy name, points per window, points left and seconds until the window
 * resets; sent back as the IETF `RateLimit-Policy` and `RateLimit` headers (draft-ietf-httpapi-ratelimit-headers).
 */
export interface BudgetState {
  policy: 'address' | 'caller' | 'strict' | 'documents';
  limit: number;
  remaining: number;
  resetSeconds: number;
  /** Whether this charge went past the budget (the request is refused 429 for it). */
  exceeded: boolean;
}

/** The most points taken ahead for one key, and the most keys holding some at once (the memory bound). */
const LEASE_MAX = 64;
const LEASES_MAX = 10_000;

/** The points a busy key's statement takes ahead for a budget of `limit` points: a hundredth of it, at most 64. */
export function leaseFor(limit: number): number {
  return Math.min(LEASE_MAX, Math.floor(limit / 100));
}

/** The seconds until a spent budget has room again, at least 1. */
const retryAfterOf = (msBeforeNext: number) => Math.max(1, Math.ceil(msBeforeNext / 1000));
const limited = (msBeforeNext: number) =>
  new ToolError('rate_limited', undefined, undefined, retryAfterOf(msBeforeNext));

type Charge = { resolve: (b: BudgetState) => void; reject: (err: unknown) => void; seen?: (b: BudgetState) => void };

/** The charges of one budget and key waiting for the next counter statement. */
interface Waiting {
  limiter: RateLimiterAbstract;
  policy: BudgetState['policy'];
  key: string;
  calls: Charge[];
}

/** Points a key's last statement took ahead: how many are left, the count of used points they follow, the window. */
interface Lease {
  left: number;
  used: number;
  until: number;
}

/** The grouped charges of every budget and key of one process. */
export class BudgetCharges {
  /** Charges waiting for their key's counter: the next statement charges all of them at once. */
  private readonly waiting = new Map<string, Waiting>();
  /** Keys whose counter statement is running. */
  private readonly busy = new Set<string>();
  private readonly leases = new Map<string, Lease>();
  /** Per budget: counter statements run, charges they answered, charges answered from points taken ahead. */
  readonly counts = new Map<BudgetState['policy'], { statements: number; byStatement: number; ahead: number }>();

  private countsOf(policy: BudgetState['policy']) {
    let c = this.counts.get(policy);
    if (!c) this.counts.set(policy, (c = { statements: 0, byStatement: 0, ahead: 0 }));
    return c;
  }

  /** Charges one point to `key` on `limiter`; rejects with `rate_limited` past the budget. */
  charge(
    limiter: RateLimiterAbstract,
    policy: BudgetState['policy'],
    key: string,
    seen?: (b: BudgetState) => void,
  ): Promise<BudgetState> {
    const id = `${policy}\u0000${key}`;
    return new Promise<BudgetState>((resolve, reject) => {
      let group = this.waiting.get(id);
      if (!group) this.waiting.set(id, (group = { limiter, policy, key, calls: [] }));
      group.calls.push({ resolve, reject, seen });
      this.run(id);
    });
  }

  /**
   * Gives the charges waiting on `id` the points taken ahead for it, then runs the counter statement for those left,
   * unless one is running (it runs the next when done).
   */
  private run(id: string): void {
    const group = this.waiting.get(id);
    if (!group) return;
    this.fromLease(id, group);
    if (!group.calls.length) {
      this.waiting.delete(id);
      return;
    }
    if (this.busy.has(id)) return;
    this.waiting.delete(id);
    this.busy.add(id);
    const { limiter, policy, calls } = group;
    const n = calls.length;
    const counts = this.countsOf(policy);
    counts.statements++;
    counts.byStatement += n;
    const limit = limiter.points;
    // A busy key (several charges at once) takes points ahead, while the process holds few keys' points.
    const ahead = n > 1 && this.roomForLease() ? leaseFor(limit) : 0;
    const settle = (res: RateLimiterRes) => {
      const before = res.consumedPoints - n - ahead;
      calls.forEach((c, i) => this.answer(c, policy, limit, before + i + 1, res.msBeforeNext));
      const left = Math.max(0, Math.min(ahead, limit - before - n));
      if (left > 0) this.leases.set(id, { left, used: before + n, until: Date.now() + res.msBeforeNext });
    };
    void limiter
      .consume(group.key, n + ahead)
      .then(settle, (err: unknown) =>
        err instanceof RateLimiterRes ? settle(err) : calls.forEach((c) => c.reject(err)),
      )
      .finally(() => {
        this.busy.delete(id);
        this.run(id);
      });
  }

  /** Answers waiting charges of `id` from its points taken ahead, in arrival order, while some are left. */
  private fromLease(id: string, group: Waiting) {
    const lease = this.leases.get(id);
    if (!lease) return;
    const now = Date.now();
    if (now >= lease.until) {
      this.leases.delete(id);
      return;
    }
    const counts = this.countsOf(group.policy);
    while (lease.left > 0 && group.calls.length) {
      lease.left--;
      lease.used++;
      counts.ahead++;
      this.answer(group.calls.shift()!, group.policy, group.limiter.points, lease.used, lease.until - now);
    }
    if (lease.left === 0) this.leases.delete(id);
  }

  /** Whether another key may hold points taken ahead; drops the leases whose window has ended when the map is full. */
  private roomForLease(): boolean {
    if (this.leases.size < LEASES_MAX) return true;
    const now = Date.now();
    for (const [id, lease] of this.leases) if (now >= lease.until) this.leases.delete(id);
    return this.leases.size < LEASES_MAX;
  }

  /** Settles one charge that is the `used`-th point of its window. */
  private answer(c: Charge, policy: BudgetState['policy'], limit: number, used: number, msBeforeNext: number): void {
    const state = {
      policy,
      limit,
      remaining: Math.max(0, limit - used),
      resetSeconds: retryAfterOf(msBeforeNext),
      exceeded: used > limit,
    } as const;
    c.seen?.(state);
    if (used <= limit) c.resolve(state);
    else c.reject(limited(msBeforeNext));
  }
}

/**
 * Registers on `registry`, read from `charges` at each scrape: `tessera_rate_limit_statements_total{policy}` (counter
 * statements run) and `tessera_rate_limit_charges_total{policy,by="statement"|"ahead"}` (charges answered by a
 * statement, and from points taken ahead).
 */
export function registerBudgetMetrics(registry: Registry, charges: BudgetCharges): void {
  new Counter({
    name: 'tessera_rate_limit_statements_total',
    help: 'Rate-limit counter statements this process ran, by budget.',
    labelNames: ['policy'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [policy, c] of charges.counts) this.inc({ policy }, c.statements);
    },
  });
  new Counter({
    name: 'tessera_rate_limit_charges_total',
    help: 'Rate-limit charges this process answered, by budget: by a counter statement, or from points taken ahead.',
    labelNames: ['policy', 'by'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [policy, c] of charges.counts) {
        this.inc({ policy, by: 'statement' }, c.byStatement);
        this.inc({ policy, by: 'ahead' }, c.ahead);
      }
    },
  });
}
