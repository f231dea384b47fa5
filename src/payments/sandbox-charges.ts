/**
 * The sandbox's charge ledger writes (`sandbox_charges`, the simulated provider's own database), grouped: charges
 * arriving while one statement runs are recorded together by the next, in one statement and one commit (a flash sale's
 * confirms each charge once, and a commit per charge was the last per-call commit of a grouped confirm). A charge alone
 * runs the single-row statement. Each charge keeps its own answer: the row it made, or the row its payment id already
 * had (a retry charges once), or none when a concurrent transaction committed that row after the statement's snapshot
 * (the caller reads it again). A group whose statement fails records its charges one by one.
 */
import { CallGroups } from '../kernel/call-groups.ts';
import type { Database } from '../storage/database.ts';
import type { DeclineCode } from './provider.ts';

export interface ChargeRow {
  id: string;
  state: 'pending' | 'succeeded' | 'failed' | 'refunded';
  outcome: 'succeeded' | 'failed';
  failure_code: DeclineCode | null;
}

/** One charge's ledger row, as inserted. */
export interface NewCharge {
  id: string;
  paymentReference: string;
  paymentMethod: string;
  amountMinor: number;
  currency: string;
  outcome: 'succeeded' | 'failed';
  failureCode: DeclineCode | null;
  state: 'pending' | 'succeeded' | 'failed';
  settleAt: Date | null;
  createdAt: Date;
  settledAt: Date | null;
}

/** The new charge, or the one this payment id already has (a retry charges once). */
const ONE = `with made as (
    insert into sandbox_charges (id, payment_reference, payment_method, amount_minor, currency, outcome,
      failure_code, state, settle_at, created_at, settled_at)
    values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) on conflict (payment_reference) do nothing
    returning id, state, outcome, failure_code)
  select id, state, outcome, failure_code from made
  union all
  select id, state, outcome, failure_code from sandbox_charges
   where payment_reference = $2 and not exists (select from made)`;

/** The same for several payment ids at once, each row named by its payment reference. */
const MANY = `with j as (
    select * from jsonb_to_recordset($1::jsonb) as j(id text, ref text, method text, amount int, currency text,
      outcome text, failure text, state text, settle_at timestamptz, created_at timestamptz, settled_at timestamptz)),
  made as (
    insert into sandbox_charges (id, payment_reference, payment_method, amount_minor, currency, outcome,
      failure_code, state, settle_at, created_at, settled_at)
    select id, ref, method, amount, currency, outcome, failure, state, settle_at, created_at, settled_at from j
    on conflict (payment_reference) do nothing
    returning payment_reference as ref, id, state, outcome, failure_code)
  select ref, id, state, outcome, failure_code from made
  union all
  select c.payment_reference, c.id, c.state, c.outcome, c.failure_code from sandbox_charges c
   where c.payment_reference = any($2::text[]) and c.payment_reference not in (select ref from made)`;

const valuesOf = (c: NewCharge): unknown[] => [
  c.id,
  c.paymentReference,
  c.paymentMethod,
  c.amountMinor,
  c.currency,
  c.outcome,
  c.failureCode,
  c.state,
  c.settleAt,
  c.createdAt,
  c.settledAt,
];

/** Records charges, grouped; one per process and database (`SandboxProvider`). */
export class SandboxCharges extends CallGroups<{ charge: NewCharge }, ChargeRow | undefined> {
  private readonly db: Database;

  constructor(db: Database) {
    super(64, 1);
    this.db = db;
  }

  /** Records `charge` (or finds the row its payment id has); undefined: committed meanwhile, read it again. */
  record(charge: NewCharge): Promise<ChargeRow | undefined> {
    return this.enqueue({ charge });
  }

  private async one(charge: NewCharge): Promise<ChargeRow | undefined> {
    const [row] = await this.db.bound<ChargeRow>(ONE, valuesOf(charge));
    return row;
  }

  protected async run(
    group: { charge: NewCharge; resolve: (r: ChargeRow | undefined) => void; reject: (err: unknown) => void }[],
  ): Promise<void> {
    if (group.length === 1) return this.eachAlone(group, (m) => this.one(m.charge));
    let rows: (ChargeRow & { ref: string })[];
    try {
      // The same payment id twice in a group: the first one's row is inserted, and both get it.
      const first = new Map<string, NewCharge>();
      for (const { charge } of group)
        if (!first.has(charge.paymentReference)) first.set(charge.paymentReference, charge);
      const json = [...first.values()].map((c) => ({
        id: c.id,
        ref: c.paymentReference,
        method: c.paymentMethod,
        amount: c.amountMinor,
        currency: c.currency,
        outcome: c.outcome,
        failure: c.failureCode,
        state: c.state,
        settle_at: c.settleAt,
        created_at: c.createdAt,
        settled_at: c.settledAt,
      }));
      rows = await this.db.bound<ChargeRow & { ref: string }>(MANY, [JSON.stringify(json), [...first.keys()]]);
    } catch {
      return this.eachAlone(group, (m) => this.one(m.charge));
    }
    const byRef = new Map(rows.map(({ ref, ...row }) => [ref, row]));
    for (const m of group) m.resolve(byRef.get(m.charge.paymentReference));
  }
}
