/**
 * Saved cards (instruments): saved from a succeeded setup after the emailed code, tied to the shop and
 * payment connection they were saved for, with a spending cap (the most any one charge may be) that only
 * an emailed code can raise. Also resolves what `confirm` charges when it pays with a saved card.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { Instrument, type CardSetupRow, type InstrumentRow } from '../../storage/entities/buyer-authority.ts';
import { Shop } from '../../storage/entities/catalog.ts';
import { refuseBuyerPastCap } from './buyer-caps.ts';
import { Reservation } from '../../storage/entities/purchase.ts';
import { newId } from '../../storage/ids.ts';
import { iso } from '../../kernel/wire.ts';
import { chargeableInstrument, checkCardCap, authorizeAgentPurchase } from './agent-purchases.ts';
import { CLOSED_MESSAGE, isClosed, requireOwnSetup } from './card-setups.ts';
import { buyerOf } from './sessions.ts';
import { requireConsent, spendConsent, type CodeProof } from './verification.ts';

/** Stands in for the method when the reservation is not held: confirm answers before charging anything. */
const NOT_HELD = 'pm_not_held';

export function instrumentOut(i: InstrumentRow) {
  return {
    id: i.id,
    merchantId: i.shopId,
    provider: i.provider,
    scheme: i.scheme,
    last4: i.last4,
    spendingCapMinor: i.spendingCapMinor,
    currency: i.currency,
    createdAt: iso(i.createdAt),
  };
}

/**
 * Saves the card of a succeeded setup (after the emailed code). Retrying after it was saved returns the
 * same card without asking for another code: the successful setup is reused.
 */
export async function saveCard(
  ctx: ToolContext,
  input: { setupId: string; spendingCapMinor: number } & CodeProof,
): Promise<{ instrument: InstrumentRow; reused: boolean }> {
  const db = ctx.services.db;
  const existing = await db.transaction(async (em) => {
    const setup = await requireOwnSetup(em, ctx, input.setupId);
    if (setup.instrumentId) return em.findOneOrFail(Instrument, { id: setup.instrumentId });
    if (isClosed(setup, ctx.clock.now()))
      throw new ToolError('card_setup_not_ready', CLOSED_MESSAGE, { setupId: setup.id, status: setup.status });
    if (setup.status !== 'succeeded')
      throw new ToolError('card_setup_not_ready', undefined, { setupId: setup.id, status: setup.status });
    return null;
  });
  if (existing) return { instrument: existing, reused: true };
  const consent = await requireConsent(ctx, 'save_card', input);
  const now = ctx.clock.now();
  return db.transaction(async (em) => {
    const setup = await requireOwnSetup(em, ctx, input.setupId);
    if (setup.instrumentId)
      return { instrument: await em.findOneOrFail(Instrument, { id: setup.instrumentId }), reused: true };
    if (isClosed(setup, now))
      throw new ToolError('card_setup_not_ready', CLOSED_MESSAGE, { setupId: setup.id, status: setup.status });
    await spendConsent(em, consent, now);
    const instrument = await insertInstrument(em, setup, input.spendingCapMinor, now);
    await em.flush();
    return { instrument, reused: false };
  });
}

/**
 * The saved card of a succeeded setup (unflushed), linked to it; the caller checked the setup and spent the consent.
 */
export async function insertInstrument(
  em: EntityManager,
  setup: CardSetupRow,
  spendingCapMinor: number,
  now: Date,
): Promise<InstrumentRow> {
  await refuseBuyerPastCap(em, setup.buyerId, 'cards', now);
  const shop = await em.findOneOrFail(Shop, { id: setup.shopId });
  const instrument = em.create(Instrument, {
    id: newId('instrument', now),
    buyerId: setup.buyerId,
    shopId: setup.shopId,
    provider: setup.provider,
    setupId: setup.id,
    paymentMethod: setup.paymentMethod!,
    scheme: setup.scheme!,
    last4: setup.last4!,
    spendingCapMinor,
    currency: shop.currency,
    createdAt: now,
    deletedAt: null,
  });
  setup.instrumentId = instrument.id;
  setup.updatedAt = now;
  return instrument;
}

/**
 * The caller's saved card (locked). A session for a shop that is bounded sees only that shop's cards;
 * anything else answers `instrument_not_found`.
 */
export async function requireOwnInstrument(
  em: EntityManager,
  ctx: Pick<ToolContext, 'principal'>,
  id: string,
): Promise<InstrumentRow> {
  const principal = buyerOf(ctx);
  const instrument = await em.findOne(Instrument, { id, deletedAt: null }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  const outOfScope = principal.mode === 'bounded' && instrument?.shopId !== principal.merchantId;
  if (!instrument || instrument.buyerId !== principal.buyerId || outOfScope)
    throw new ToolError('instrument_not_found', undefined, { instrumentId: id });
  return instrument;
}

/** Raises a card's spending cap (after the emailed code); lowering is `lowerCardCap`. */
export async function raiseCardCap(
  ctx: ToolContext,
  input: { id: string; spendingCapMinor: number } & CodeProof,
): Promise<InstrumentRow> {
  const db = ctx.services.db;
  const current = await db.transaction((em) => requireOwnInstrument(em, ctx, input.id));
  if (input.spendingCapMinor <= current.spendingCapMinor) {
    throw new ToolError('invalid_input', 'The new cap must be higher than the current one (lowering needs no code).', {
      spendingCapMinor: current.spendingCapMinor,
    });
  }
  const consent = await requireConsent(ctx, 'raise_card_cap', input);
  const now = ctx.clock.now();
  return db.transaction(async (em) => {
    await spendConsent(em, consent, now);
    const instrument = await requireOwnInstrument(em, ctx, input.id);
    instrument.spendingCapMinor = Math.max(instrument.spendingCapMinor, input.spendingCapMinor);
    await em.flush();
    return instrument;
  });
}

/** Lowers a card's spending cap: narrowing authority needs no code and is open to bounded sessions. */
export async function lowerCardCap(ctx: ToolContext, id: string, spendingCapMinor: number): Promise<InstrumentRow> {
  const instrument = await requireOwnInstrument(ctx.em, ctx, id);
  if (spendingCapMinor > instrument.spendingCapMinor) {
    throw new ToolError('invalid_input', 'Raising a cap needs an emailed code: use raise_card_cap.', {
      spendingCapMinor: instrument.spendingCapMinor,
    });
  }
  instrument.spendingCapMinor = spendingCapMinor;
  await ctx.em.flush();
  return instrument;
}

/** The buyer's saved cards: all of them for a full session, the session shop's for a bounded one. */
export async function listInstruments(ctx: ToolContext): Promise<InstrumentRow[]> {
  const principal = buyerOf(ctx);
  if (principal.mode === 'bounded' && !principal.merchantId) return [];
  const where =
    principal.mode === 'bounded'
      ? { buyerId: principal.buyerId, shopId: principal.merchantId!, deletedAt: null }
      : { buyerId: principal.buyerId, deletedAt: null };
  return ctx.em.find(Instrument, where, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

/**
 * What `confirm` charges. A buyer may name a saved card of theirs (`instrumentId`): it must be for the
 * reservation's shop and payment connection (`instrument_provider_mismatch`) and within its cap. An agent
 * names nothing: it pays with the saved card of its permission (checked again, locked, at pay time).
 */
export async function paymentMethodForConfirm(
  ctx: ToolContext,
  reservationId: string,
  given: { paymentMethod?: string | undefined; instrumentId?: string | undefined },
): Promise<string> {
  const { em, principal } = ctx;
  if (principal.kind === 'agent') {
    if (given.paymentMethod !== undefined || given.instrumentId !== undefined) {
      throw new ToolError(
        'invalid_input',
        'An agent pays with the saved card of its permission: send neither paymentMethod nor instrumentId.',
        {
          fields: ['paymentMethod', 'instrumentId'],
        },
      );
    }
  } else if ((given.paymentMethod === undefined) === (given.instrumentId === undefined)) {
    throw new ToolError('invalid_input', 'Give exactly one of paymentMethod or instrumentId.', {
      fields: ['paymentMethod', 'instrumentId'],
    });
  }
  if (given.paymentMethod !== undefined) return given.paymentMethod;
  const reservation = await em.findOne(Reservation, { id: reservationId });
  const shop = reservation ? await em.findOne(Shop, { id: reservation.shopId }) : null;
  if (
    !reservation ||
    !shop ||
    reservation.buyerId !== (principal.kind === 'buyer' || principal.kind === 'agent' ? principal.buyerId : undefined)
  ) {
    throw new ToolError('not_found', `No reservation ${reservationId}.`, { id: reservationId });
  }
  if (principal.kind === 'agent') {
    // A reservation no longer held is answered by confirm before any method is used (its stored outcome or a refusal).
    if (reservation.state !== 'held') return NOT_HELD;
    const stage = {
      agentId: principal.agentId,
      permissionId: principal.permissionId,
      shop,
      amountMinor: reservation.totalMinor,
      currency: reservation.currency,
      stage: 'reserve' as const,
    };
    return (await authorizeAgentPurchase(em, stage, ctx.clock.now())).instrument.paymentMethod;
  }
  const instrument = await em.findOne(Instrument, {
    id: given.instrumentId!,
    buyerId: principal.kind === 'buyer' ? principal.buyerId : '',
    deletedAt: null,
  });
  if (!instrument) throw new ToolError('instrument_not_found', undefined, { instrumentId: given.instrumentId });
  await chargeableInstrument(em, instrument.id, shop);
  checkCardCap(instrument, reservation.totalMinor);
  return instrument.paymentMethod;
}
