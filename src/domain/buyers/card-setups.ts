/**
 * Card setups: the buyer enters the card in the payment provider's hosted form (framed by our page), the
 * form yields a payment method, the provider prepares it for later charges, and `save_card` (with an
 * emailed code) turns the succeeded setup into a saved card for the session's shop. An unfinished setup
 * is kept for one day and resumed; a succeeded one is reused by every retry.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { CardSetup, type CardSetupRow } from '../../storage/entities/buyer-authority.ts';
import { Shop, type ShopRow } from '../../storage/entities/catalog.ts';
import { newId } from '../../storage/ids.ts';
import { iso } from '../../kernel/wire.ts';
import { prepareCard } from './card-preparation.ts';
import { buyerOf } from './sessions.ts';

/** How long an unfinished setup is kept and resumed (spec §8: one day, per buyer). */
export const SETUP_RETENTION_MS = 24 * 60 * 60 * 1000;

/** The shop of the caller's session, or `session_shop_required`. */
export async function sessionShop(em: EntityManager, ctx: Pick<ToolContext, 'principal'>): Promise<ShopRow> {
  const principal = buyerOf(ctx);
  if (!principal.merchantId) throw new ToolError('session_shop_required');
  const shop = await em.findOne(Shop, { id: principal.merchantId, deletedAt: null });
  if (!shop) throw new ToolError('not_found', `No shop ${principal.merchantId}.`, { merchantId: principal.merchantId });
  return shop;
}

export function setupOut(s: CardSetupRow, formUrl: string) {
  return {
    setupId: s.id,
    merchantId: s.shopId,
    provider: s.provider,
    status: s.status as 'pending' | 'succeeded' | 'failed',
    formUrl,
    scheme: s.scheme ?? null,
    last4: s.last4 ?? null,
    failureCode: s.failureCode ?? null,
    instrumentId: s.instrumentId ?? null,
    expiresAt: iso(s.expiresAt),
  };
}

/** The hosted card form for a setup; the form posts its payment method to our own origin only. */
export function formUrlFor(ctx: Pick<ToolContext, 'services'>, setup: CardSetupRow): string {
  const base = ctx.services.publicUrl();
  const origin = new URL(base).origin;
  return `${base}/sandbox/card-form?setup=${encodeURIComponent(setup.id)}&origin=${encodeURIComponent(origin)}`;
}

/** Starts a setup for the session's shop, or resumes the buyer's unfinished one there. */
export async function startCardSetup(ctx: ToolContext): Promise<CardSetupRow> {
  const { em } = ctx;
  const principal = buyerOf(ctx);
  const now = ctx.clock.now();
  const shop = await sessionShop(em, ctx);
  ctx.services.payments.provider(shop.paymentProvider);
  const open = await em.findOne(
    CardSetup,
    {
      buyerId: principal.buyerId,
      shopId: shop.id,
      provider: shop.paymentProvider,
      instrumentId: null,
      expiresAt: { $gt: now },
    },
    { orderBy: { createdAt: 'desc' } },
  );
  if (open) return open;
  const setup = em.create(CardSetup, {
    id: newId('cardSetup', now),
    buyerId: principal.buyerId,
    shopId: shop.id,
    provider: shop.paymentProvider,
    status: 'pending',
    paymentMethod: null,
    scheme: null,
    last4: null,
    failureCode: null,
    attempts: 0,
    instrumentId: null,
    expiresAt: new Date(now.getTime() + SETUP_RETENTION_MS),
    createdAt: now,
    updatedAt: now,
  });
  await em.flush();
  return setup;
}

/** The refusal's message for a setup that expired or was discarded before its card was saved. */
export const CLOSED_MESSAGE = 'This card setup has expired or was discarded; start a new one.';

/** True when an unsaved setup can no longer be completed or saved: it expired, or the buyer discarded it. */
export function isClosed(setup: CardSetupRow, now: Date): boolean {
  return !setup.instrumentId && setup.expiresAt <= now;
}

/**
 * Discards the caller's unsaved setup (whatever its status), so that `start_card_setup` begins a new one:
 * it ends now and is never resumed, completed or saved. Idempotent; a saved setup is left as it is
 * (its card stays saved). Narrowing: bounded sessions of the same buyer and shop may discard too.
 */
export async function discardCardSetup(
  ctx: ToolContext,
  id: string,
): Promise<{ setup: CardSetupRow; discarded: boolean }> {
  const setup = await requireOwnSetup(ctx.em, ctx, id);
  if (setup.instrumentId) return { setup, discarded: false };
  const now = ctx.clock.now();
  if (setup.expiresAt > now) {
    setup.expiresAt = now;
    setup.updatedAt = now;
    await ctx.em.flush();
  }
  return { setup, discarded: true };
}

/** The caller's setup in its session's shop, locked; anything else answers 404. */
export async function requireOwnSetup(
  em: EntityManager,
  ctx: Pick<ToolContext, 'principal'>,
  id: string,
): Promise<CardSetupRow> {
  const principal = buyerOf(ctx);
  const setup = await em.findOne(CardSetup, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!setup || setup.buyerId !== principal.buyerId || setup.shopId !== principal.merchantId) {
    throw new ToolError('not_found', `No card setup ${id}.`, { setupId: id });
  }
  return setup;
}

/**
 * Completes a setup with the payment method the hosted form produced: the provider prepares it outside
 * any transaction, then the outcome is recorded. A setup that already succeeded is returned unchanged.
 */
export async function completeCardSetup(
  ctx: ToolContext,
  id: string,
  paymentMethod: string,
): Promise<{ setup: CardSetupRow; reused: boolean }> {
  const db = ctx.services.db;
  const begun = await db.transaction(async (em) => {
    const setup = await requireOwnSetup(em, ctx, id);
    if (isClosed(setup, ctx.clock.now())) throw new ToolError('card_setup_not_ready', CLOSED_MESSAGE, { setupId: id });
    if (setup.status === 'succeeded') return { setup, reused: true };
    const retry = setup.paymentMethod === paymentMethod;
    setup.attempts += 1;
    setup.paymentMethod = paymentMethod;
    await em.flush();
    return { setup, reused: false, retry };
  });
  if (begun.reused) return begun;
  let failure: ToolError | undefined;
  let prepared: ReturnType<typeof prepareCard> | undefined;
  try {
    prepared = prepareCard(begun.setup.provider, paymentMethod, begun.retry === true);
  } catch (err) {
    if (!(err instanceof ToolError)) throw err;
    failure = err;
  }
  const setup = await db.transaction(async (em) => {
    const row = await requireOwnSetup(em, ctx, id);
    if (row.status === 'succeeded') return row;
    row.updatedAt = ctx.clock.now();
    if (prepared) Object.assign(row, { status: 'succeeded', failureCode: null, ...prepared });
    else if (failure && failure.code !== 'card_preparation_unavailable')
      Object.assign(row, { status: 'failed', failureCode: failure.code });
    await em.flush();
    return row;
  });
  if (failure && setup.status !== 'succeeded') throw failure;
  return { setup, reused: false };
}
