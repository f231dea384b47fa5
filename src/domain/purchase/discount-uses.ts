/**
 * A discount code's uses (docs/discount-codes.md), counted exactly once under races: a reserve of a quote that carries
 * a code locks the code's row (after the quotes, before the pools: one lock order for every reserve), decides whether a
 * use is free (the code's limit, the buyer's limit) and takes it in the reserve's transaction, with a use row for the
 * hold; a hold released (by the buyer, on expiry, a failed payment) gives its use back, a refund only when the code
 * says so. A purchase without a code costs no statement here.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ToolError } from '../../kernel/errors.ts';
import type { QuoteRow } from '../../storage/entities/purchase.ts';
import { sql } from '../../storage/database.ts';
import { codeRefused } from './discounts.ts';

interface LockedCode {
  id: string;
  code: string;
  uses: number;
  max_uses: number | null;
  max_uses_per_buyer: number | null;
  disabled_at: Date | null;
  deleted_at: Date | null;
  ends_at: Date | string | null;
}

/**
 * Decides, in arrival order, which of `candidates` (reserves about to hold their quote) may take their code's use:
 * locks their codes (FOR UPDATE, in id order) and counts their buyers' uses. The refused ones come back with
 * `discount_code_invalid` (reason `exhausted`, `buyer_limit`, `disabled` or `expired`); nothing is written
 * (`writeDiscountUses` writes the kept ones' uses once their holds exist).
 */
export async function decideDiscountUses<C extends { index: number; quote: QuoteRow }>(
  em: EntityManager,
  candidates: readonly C[],
  now: Date,
): Promise<{ kept: C[]; refused: { index: number; error: ToolError }[] }> {
  const coded = candidates.filter((c) => c.quote.discountCodeId);
  if (!coded.length) return { kept: [...candidates], refused: [] };
  const ids = [...new Set(coded.map((c) => c.quote.discountCodeId!))].sort();
  const codes = await sql<LockedCode>(
    em,
    `select id, code, uses, max_uses, max_uses_per_buyer, disabled_at, deleted_at, ends_at
       from discount_codes where id = any(array(select jsonb_array_elements_text(?::jsonb))) order by id for update`,
    [JSON.stringify(ids)],
  );
  const byId = new Map(codes.map((c) => [c.id, c]));
  const buyerKeys = [...new Set(coded.flatMap((c) => (c.quote.discountBuyerKey ? [c.quote.discountBuyerKey] : [])))];
  const held = new Map<string, number>();
  if (buyerKeys.length && codes.some((c) => c.max_uses_per_buyer !== null)) {
    const rows = await sql<{ code_id: string; buyer_key: string; n: number }>(
      em,
      `select code_id, buyer_key, count(*)::int as n from discount_uses
        where state = 'held'
          and code_id = any(array(select jsonb_array_elements_text(?::jsonb)))
          and buyer_key = any(array(select jsonb_array_elements_text(?::jsonb)))
        group by code_id, buyer_key`,
      [JSON.stringify(ids), JSON.stringify(buyerKeys)],
    );
    for (const r of rows) held.set(`${r.code_id} ${r.buyer_key}`, r.n);
  }
  const kept: C[] = [];
  const refused: { index: number; error: ToolError }[] = [];
  for (const c of candidates) {
    const codeId = c.quote.discountCodeId;
    const code = codeId ? byId.get(codeId) : undefined;
    if (!codeId) {
      kept.push(c);
      continue;
    }
    const reason = refusalOf(code, c.quote.discountBuyerKey ?? null, held, now);
    if (reason) {
      refused.push({ index: c.index, error: codeRefused(reason, { code: code?.code }) });
      continue;
    }
    code!.uses += 1;
    const key = `${codeId} ${c.quote.discountBuyerKey}`;
    if (c.quote.discountBuyerKey) held.set(key, (held.get(key) ?? 0) + 1);
    kept.push(c);
  }
  return { kept, refused };
}

/** Why a locked code cannot give one more use to this buyer now; undefined when it can. */
function refusalOf(
  code: LockedCode | undefined,
  buyerKey: string | null,
  held: Map<string, number>,
  now: Date,
): string | undefined {
  if (!code || code.deleted_at || code.disabled_at) return 'disabled';
  if (code.ends_at && new Date(code.ends_at) <= now) return 'expired';
  if (code.max_uses !== null && code.uses >= code.max_uses) return 'exhausted';
  if (code.max_uses_per_buyer === null) return undefined;
  if (!buyerKey) return 'buyer_required';
  return (held.get(`${code.id} ${buyerKey}`) ?? 0) >= code.max_uses_per_buyer ? 'buyer_limit' : undefined;
}

/** Writes the uses `decideDiscountUses` kept, once their holds exist: each code's count and one use row per hold. */
export async function writeDiscountUses(
  em: EntityManager,
  holds: readonly { reservationId: string; quote: QuoteRow }[],
  now: Date,
): Promise<void> {
  const uses = holds
    .filter((h) => h.quote.discountCodeId)
    .map((h) => ({
      reservation_id: h.reservationId,
      code_id: h.quote.discountCodeId,
      buyer_key: h.quote.discountBuyerKey,
    }));
  if (!uses.length) return;
  await sql(
    em,
    `with rows as (
       insert into discount_uses (reservation_id, code_id, buyer_key, state, created_at, updated_at)
       select v.reservation_id, v.code_id, v.buyer_key, 'held', ?::timestamptz, ?::timestamptz
         from jsonb_to_recordset(?::jsonb) as v(reservation_id text, code_id text, buyer_key text)
       returning code_id
     )
     update discount_codes c set uses = c.uses + n.n, updated_at = ?
       from (select code_id, count(*)::int as n from rows group by code_id) n where c.id = n.code_id`,
    [now, now, JSON.stringify(uses), now],
  );
}

/**
 * The reserve step's use, on the direct path (one quote in the caller's transaction): decides and writes it, or throws
 * the refusal (the caller's rollback undoes the hold).
 */
export async function takeDiscountUse(em: EntityManager, quote: QuoteRow, reservationId: string, now: Date) {
  if (!quote.discountCodeId) return;
  const { refused } = await decideDiscountUses(em, [{ index: 0, quote }], now);
  if (refused.length) throw refused[0]!.error;
  await writeDiscountUses(em, [{ reservationId, quote }], now);
}

/**
 * Gives back the uses of `reservations` (released holds; or, with `refund`, refunded purchases whose code gives its use
 * back on refund), each once, locking the codes' rows in id order first. No statement when none carries a code.
 */
export async function returnDiscountUses(
  em: EntityManager,
  reservations: readonly { id: string; discountCodeId?: string | null | undefined }[],
  now: Date,
  cause: 'release' | 'refund' = 'release',
): Promise<void> {
  const ids = reservations.filter((r) => r.discountCodeId).map((r) => r.id);
  if (!ids.length) return;
  // The codes' rows first, in id order (as a reserve takes them): two passes giving back uses of the same codes in
  // different orders wait for each other instead of deadlocking.
  await sql(
    em,
    `select id from discount_codes
      where id in (select code_id from discount_uses
                    where reservation_id = any(array(select jsonb_array_elements_text(?::jsonb))) and state = 'held')
      order by id for update`,
    [JSON.stringify(ids)],
  );
  await sql(
    em,
    `with back as (
       update discount_uses u set state = 'returned', updated_at = ?
        where u.reservation_id = any(array(select jsonb_array_elements_text(?::jsonb))) and u.state = 'held'
          and (?::boolean or exists (select 1 from discount_codes c where c.id = u.code_id and c.refund_returns_use))
       returning u.code_id
     )
     update discount_codes c set uses = c.uses - n.n, updated_at = ?
       from (select code_id, count(*)::int as n from back group by code_id) n where c.id = n.code_id`,
    [now, JSON.stringify(ids), cause === 'release', now],
  );
}
