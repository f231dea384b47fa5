/**
 * A shop's discount codes, as the merchant manages them (docs/discount-codes.md): create, list, read, change (window,
 * limits, disabled) and delete. The purchase side is domain/purchase/discounts.ts and discount-uses.ts.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { ToolError } from '../../kernel/errors.ts';
import { iso, isoOrNull } from '../../kernel/wire.ts';
import { DiscountCode, type DiscountCodeRow, type DiscountKind } from '../../storage/entities/discount.ts';

export { DISCOUNT_KINDS } from '../../storage/entities/discount.ts';
import { Tier } from '../../storage/entities/catalog.ts';
import { newId } from '../../storage/ids.ts';
import type { ToolContext } from '../context.ts';
import { requireShop } from './access.ts';

type Ctx = Pick<ToolContext, 'em' | 'principal' | 'clock'>;

/** What a merchant sets on a code; on change, fields left out keep their value (null clears a limit or a bound). */
export interface DiscountCodeFields {
  tierIds?: string[] | null | undefined;
  maxUses?: number | null | undefined;
  maxUsesPerBuyer?: number | null | undefined;
  startsAt?: string | null | undefined;
  endsAt?: string | null | undefined;
  refundReturnsUse?: boolean | undefined;
}

export interface NewDiscountCode extends DiscountCodeFields {
  merchantId: string;
  code: string;
  kind: DiscountKind;
  percentOff?: number | undefined;
  amountOffMinor?: number | undefined;
  currency?: string | undefined;
}

/** A code as the tools show it. */
export function discountCodeOut(c: DiscountCodeRow) {
  return {
    id: c.id,
    merchantId: c.shopId,
    code: c.code,
    kind: c.kind,
    percentOff: c.percentOff ?? null,
    amountOffMinor: c.amountOffMinor ?? null,
    currency: c.currency ?? null,
    tierIds: c.tierIds ?? null,
    maxUses: c.maxUses ?? null,
    maxUsesPerBuyer: c.maxUsesPerBuyer ?? null,
    uses: c.uses,
    startsAt: isoOrNull(c.startsAt),
    endsAt: isoOrNull(c.endsAt),
    refundReturnsUse: c.refundReturnsUse,
    disabled: c.disabledAt != null,
    createdAt: iso(c.createdAt),
    updatedAt: iso(c.updatedAt),
  };
}

/** A code as the buyer types it, compared case-insensitively: trimmed and upper case. */
export function normalizeCode(code: string): string {
  return code.trim().toUpperCase();
}

const invalid = (field: string, message: string) => new ToolError('invalid_input', message, { field });

/** Creates a code for a shop of the caller's organization; its text is unique in the shop (`discount_code_taken`). */
export async function createDiscountCode(ctx: Ctx, input: NewDiscountCode): Promise<DiscountCodeRow> {
  const { em, principal } = ctx;
  const shop = await requireShop(em, principal, input.merchantId);
  if (input.kind === 'percent' && input.percentOff === undefined) throw invalid('percentOff', 'Give percentOff.');
  if (input.kind === 'fixed' && input.amountOffMinor === undefined)
    throw invalid('amountOffMinor', 'Give amountOffMinor.');
  const now = ctx.clock.now();
  const row = em.create(DiscountCode, {
    id: newId('discountCode', now),
    shopId: shop.id,
    organizationId: shop.organizationId,
    code: normalizeCode(input.code),
    kind: input.kind,
    percentOff: input.kind === 'percent' ? input.percentOff! : null,
    amountOffMinor: input.kind === 'fixed' ? input.amountOffMinor! : null,
    currency: input.kind === 'fixed' ? (input.currency ?? shop.currency).toUpperCase() : null,
    refundReturnsUse: false,
    uses: 0,
    createdAt: now,
    updatedAt: now,
  });
  await applyFields(em, row, input);
  try {
    await em.flush();
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException)
      throw new ToolError('discount_code_taken', undefined, { code: row.code });
    throw err;
  }
  return row;
}

/** Sets the changeable fields given, checking tiers (of the shop) and the window's order. */
async function applyFields(em: EntityManager, row: DiscountCodeRow, f: DiscountCodeFields): Promise<void> {
  if (f.tierIds !== undefined) {
    const ids = f.tierIds === null ? null : [...new Set(f.tierIds)].sort();
    if (ids) {
      const found = await em.count(Tier, { id: { $in: ids }, shopId: row.shopId });
      if (found !== ids.length) throw invalid('tierIds', 'Every tier must be one of this shop’s tiers.');
    }
    row.tierIds = ids;
  }
  if (f.maxUses !== undefined) row.maxUses = f.maxUses;
  if (f.maxUsesPerBuyer !== undefined) row.maxUsesPerBuyer = f.maxUsesPerBuyer;
  if (f.startsAt !== undefined) row.startsAt = f.startsAt ? new Date(f.startsAt) : null;
  if (f.endsAt !== undefined) row.endsAt = f.endsAt ? new Date(f.endsAt) : null;
  if (f.refundReturnsUse !== undefined) row.refundReturnsUse = f.refundReturnsUse;
  if (row.startsAt && row.endsAt && row.startsAt >= row.endsAt)
    throw invalid('endsAt', 'endsAt must be after startsAt.');
}

/** A live code of a shop of the caller's organization; another organization's answers `not_found`. */
export async function requireDiscountCode(ctx: Ctx, id: string): Promise<DiscountCodeRow> {
  const row = await ctx.em.findOne(DiscountCode, { id, deletedAt: null });
  const mine = row
    ? await requireShop(ctx.em, ctx.principal, row.shopId).then(
        () => true,
        () => false,
      )
    : false;
  if (!row || !mine) throw new ToolError('not_found', `No discount code ${id}.`, { id });
  return row;
}

/** A shop's live codes in id order, a page at a time. */
export async function listDiscountCodes(
  ctx: Ctx,
  input: { merchantId: string; limit: number; cursor?: string | undefined },
): Promise<{ codes: DiscountCodeRow[]; nextCursor?: string }> {
  await requireShop(ctx.em, ctx.principal, input.merchantId);
  const where = { shopId: input.merchantId, deletedAt: null, ...(input.cursor ? { id: { $gt: input.cursor } } : {}) };
  const rows = await ctx.em.find(DiscountCode, where, { orderBy: { id: 'asc' }, limit: input.limit + 1 });
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  return { codes: page, ...(rows.length > input.limit && last ? { nextCursor: last.id } : {}) };
}

/** Changes a code's tiers, limits, window, refund rule or disabled state; its text, kind and amount stay. */
export async function updateDiscountCode(
  ctx: Ctx,
  id: string,
  changes: DiscountCodeFields & { disabled?: boolean | undefined },
): Promise<DiscountCodeRow> {
  const row = await requireDiscountCode(ctx, id);
  const now = ctx.clock.now();
  await applyFields(ctx.em, row, changes);
  if (changes.disabled !== undefined) row.disabledAt = changes.disabled ? (row.disabledAt ?? now) : null;
  row.updatedAt = now;
  await ctx.em.flush();
  return row;
}

/**
 * Deletes a code: it can no longer be applied and its text is free again; purchases that used it keep their discount
 * (and a hold still open keeps its use until it is released).
 */
export async function deleteDiscountCode(ctx: Ctx, id: string): Promise<DiscountCodeRow> {
  const row = await requireDiscountCode(ctx, id);
  const now = ctx.clock.now();
  row.deletedAt = now;
  row.updatedAt = now;
  await ctx.em.flush();
  return row;
}
