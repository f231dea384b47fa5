/**
 * ACP's discount extension (2026-04-17: `discounts.codes` in create/update, `discounts` with `applied` and `rejected`
 * in the session) over the spine's discount codes (docs/discount-codes.md): one code applies per session; a code that
 * cannot be used is rejected (a `discounts.rejected` entry and a warning message) and the tickets are held at full
 * price. A session without codes answers exactly as before (no `discounts` field).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ToolError } from '../../kernel/errors.ts';
import { DiscountCode, type DiscountCodeRow } from '../../storage/entities/discount.ts';
import type { QuoteRow, ReservationRow } from '../../storage/entities/purchase.ts';
import type { AcpCheckoutSessionRow } from '../../storage/entities/acp.ts';
import type { ToolContext } from '../context.ts';
import { priceDiscount } from '../purchase/discounts.ts';
import { quoteRequest, type QuoteRequest } from '../purchase/lines-quote.ts';
import type { AcpMessage } from './session-schema.ts';
import { DISCOUNT_ERROR_CODES, type AcpDiscounts } from './discount-schemas.ts';

/** Our refusal reasons → ACP's DiscountErrorCode. */
const REASONS: Record<string, (typeof DISCOUNT_ERROR_CODES)[number]> = {
  expired: 'discount_code_expired',
  exhausted: 'discount_code_usage_limit_reached',
  buyer_limit: 'discount_code_usage_limit_reached',
  buyer_required: 'discount_code_user_ineligible',
};

/** The codes a session asks for: the request's when it names `discounts`, else the code its hold already has. */
export async function sessionCodes(
  em: EntityManager,
  asked: { codes: string[] } | undefined,
  r: ReservationRow | null,
): Promise<string[]> {
  if (asked) return asked.codes.map((c) => c.trim()).filter(Boolean);
  if (!r?.discountCodeId) return [];
  const code = await em.findOne(DiscountCode, { id: r.discountCodeId });
  return code ? [code.code] : [];
}

/**
 * Quotes the session's tier (or its several lines) with its first code; a code the spine refuses (and any code past the
 * first) becomes a warning message with the ACP reason, and the quote is made without it.
 */
export async function quoteWithCodes(
  ctx: ToolContext,
  input: QuoteRequest,
  codes: readonly string[],
  s: AcpCheckoutSessionRow,
  rejected: AcpMessage[],
): Promise<QuoteRow> {
  codes.slice(1).forEach((code, i) => rejected.push(rejection(code, i + 1, 'discount_code_combination_disallowed')));
  const [code] = codes;
  if (!code) return quoteRequest(ctx, input);
  const buyerEmail = (s.buyer as { email?: string } | null)?.email;
  try {
    return await quoteRequest(ctx, { ...input, discountCode: code, buyerEmail });
  } catch (err) {
    if (!(err instanceof ToolError) || err.code !== 'discount_code_invalid') throw err;
    const reason = REASONS[String(err.details?.reason)] ?? 'discount_code_invalid';
    rejected.push(rejection(code, 0, reason));
    return quoteRequest(ctx, input);
  }
}

function rejection(code: string, index: number, reason: (typeof DISCOUNT_ERROR_CODES)[number]): AcpMessage {
  return {
    type: 'warning',
    code: reason,
    param: `$.discounts.codes[${index}]`,
    content_type: 'plain',
    content: `The discount code ${code.toUpperCase()} cannot be used (${reason}); the tickets are held at full price.`,
  };
}

/** The session's `discounts` field, or undefined when it neither has nor was refused a code. */
export async function discountsView(
  em: EntityManager,
  r: ReservationRow | null,
  messages: readonly AcpMessage[],
): Promise<AcpDiscounts | undefined> {
  const rejected = messages.flatMap((m) => {
    const reason = DISCOUNT_ERROR_CODES.find((c) => c === m.code);
    const code = /discount code (\S+) /.exec(m.content)?.[1];
    return reason && code && m.param?.startsWith('$.discounts') ? [{ code, reason, message: m.content }] : [];
  });
  const code = r?.discountCodeId ? await em.findOne(DiscountCode, { id: r.discountCodeId }) : null;
  if (!code && !rejected.length) return undefined;
  const amount = r?.discountMinor ?? 0;
  const terms =
    code?.kind === 'percent'
      ? { percent_off: code.percentOff ?? 0 }
      : { amount_off: code?.amountOffMinor ?? 0, currency: (code?.currency ?? '').toLowerCase() };
  const applied = code
    ? [
        {
          id: `${code.id}_${r!.id}`,
          code: code.code,
          coupon: { id: code.id, name: code.code, ...terms },
          amount,
          method: 'across' as const,
          allocations: allocationsOf(code, r!, amount),
        },
      ]
    : [];
  return { codes: [...(code ? [code.code] : []), ...rejected.map((x) => x.code)], applied, rejected };
}

/** The amount off each line item: one item takes it all; several, as the code spread it over their lines. */
function allocationsOf(code: DiscountCodeRow, r: ReservationRow, amount: number) {
  const lines = r.lines ?? [];
  const parts = lines.length > 1 ? priceDiscount(code, lines).perLineMinor : [amount];
  // A code edited since the hold no longer spreads to its amount: the first item then shows it all.
  const whole = parts.reduce((a, b) => a + b, 0) === amount ? parts : [amount];
  return whole.flatMap((part, i) => (part ? [{ path: `$.line_items[${i}]`, amount: part }] : []));
}
