/**
 * Replay protection for signed mandates: a jti is spent once per recurrence period, recorded in
 * `mandate_jtis` whose primary key makes a second spend impossible to commit.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ToolError } from '../kernel/errors.ts';
import { sql } from '../storage/database.ts';
import { mandatePeriod, type Mandate } from './mandate.ts';

export interface MandateUse {
  /** The shop the purchase is for. */
  merchantId: string;
  /** What the spend paid for (e.g. a reservation or order id), for audit. */
  reference?: string | null;
  /** When the spend happens (from the injected clock). */
  at: Date;
}

/** Whether the mandate's jti is already spent in the period `at` falls in. */
export async function isMandateJtiUsed(em: EntityManager, mandate: Mandate, at: Date): Promise<boolean> {
  const rows = await sql(em, 'select 1 from mandate_jtis where network = ? and jti = ? and period = ?', [
    mandate.network,
    mandate.jti,
    mandatePeriod(mandate.recurrence, at),
  ]);
  return rows.length > 0;
}

/**
 * Spends the mandate's jti for the current period, inside the caller's transaction (purchase_initiate
 * calls this in the same transaction that records the purchase, so both commit or neither does).
 * Throws `mandate_jti_used` when it is already spent, without aborting the transaction.
 * Returns the period spent.
 */
export async function consumeMandateJti(
  em: EntityManager,
  mandate: Mandate,
  use: MandateUse,
): Promise<{ period: string }> {
  const period = mandatePeriod(mandate.recurrence, use.at);
  const rows = await sql(
    em,
    `insert into mandate_jtis (network, jti, period, mandate_id, merchant_id, reference, used_at, expires_at)
     values (?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (network, jti, period) do nothing
     returning period`,
    [
      mandate.network,
      mandate.jti,
      period,
      mandate.mandateId,
      use.merchantId,
      use.reference ?? null,
      use.at,
      new Date(mandate.expiresAt),
    ],
  );
  if (rows.length === 0) throw jtiUsed(mandate, period);
  return { period };
}

/** The refusal for a spent jti. */
export function jtiUsed(mandate: Mandate, period: string): ToolError {
  const when = period === 'once' ? '' : ` in period ${period}`;
  return new ToolError('mandate_jti_used', `This mandate (jti ${mandate.jti}) was already used${when}.`, {
    jti: mandate.jti,
    period,
  });
}

/**
 * Gives back the jti spent for a payment (`reference` = the payment id) whose provider definitively
 * declined it: no money moved, so the mandate's spend authority was not exercised and it may be used
 * again. Runs in the transaction that records the decline. A no-op for payments not made under a mandate.
 */
export async function releaseMandateJti(em: EntityManager, paymentId: string): Promise<boolean> {
  const rows = await sql(em, 'delete from mandate_jtis where reference = ? returning 1', [paymentId]);
  return rows.length > 0;
}
