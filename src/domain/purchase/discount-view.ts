/** The discount fields of a quote's or reservation's view: present only when a discount code was applied. */
import { normalizeCode } from './discounts.ts';

/** `discountCodeId` and `discountMinor` when the row carries a code (and `discountCode`, its text, when known). */
export function discountField(row: {
  discountCodeId?: string | null | undefined;
  discountMinor?: number | null | undefined;
  discountCode?: string | undefined;
}): { discountCodeId?: string; discountMinor?: number; discountCode?: string } {
  if (!row.discountCodeId) return {};
  const code = row.discountCode ? { discountCode: row.discountCode } : {};
  return { discountCodeId: row.discountCodeId, discountMinor: row.discountMinor ?? 0, ...code };
}

/** A quote with its code's text (as the caller typed it, normalized) when a code was applied. */
export function withCodeText<Q extends { discountCodeId?: string | null | undefined }>(
  q: Q,
  code: string | undefined,
): Q & { discountCode?: string } {
  return q.discountCodeId && code ? Object.assign(q, { discountCode: normalizeCode(code) }) : q;
}
