/**
 * A sold-out tier's waiting list (docs/purchase-spine.md, "Waiting list"): joining (idempotent per tier and person),
 * leaving or being removed (an open offer's hold is released and passes to the next in line), and the hint the
 * `sold_out` refusal carries. Offers themselves: waiting-list-offers.ts.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Buyer } from '../../storage/entities/buyer.ts';
import { Reservation } from '../../storage/entities/purchase.ts';
import { sql } from '../../storage/database.ts';
import { newId } from '../../storage/ids.ts';
import { readTierOffer } from '../../storage/offer-read.ts';
import { ToolError } from '../../kernel/errors.ts';
import type { Principal } from '../../kernel/principal.ts';
import { mayAccessShop } from '../catalog/access.ts';
import type { ToolContext } from '../context.ts';
import { authorizePurchase, ownershipOf } from './purchase-access.ts';
import { emitPurchaseEvent, releasePlaces } from './reservations.ts';
import { offerFreedPlaces } from './waiting-list-offers.ts';
import { entryView, ENTRY_SELECT, requireEntry, type EntryRow, type EntryView } from './waiting-list-view.ts';

/** The most places one entry may wait for when the tier sets no per-purchase maximum. */
export const MAX_WAITING_QUANTITY = 10;

export interface JoinInput {
  tierId: string;
  quantity: number;
  email?: string | undefined;
  lang?: string | undefined;
}

/** Who is waiting: a buyer or agent is its own owner key; a merchant's caller names the person by e-mail. */
function personOf(principal: Principal, email: string | undefined): string {
  if (principal.kind === 'buyer' || principal.kind === 'agent') return ownershipOf(principal).ownerKey;
  if (!email) throw new ToolError('invalid_input', 'Give the e-mail of the person who waits.', { field: 'email' });
  return `email:${email}`;
}

/**
 * Joins a sold-out tier's waiting list, or returns the person's entry already in it (waiting or offered). Refused with
 * `waiting_list_closed` when the tier's list is off (or the tier is retired, its event cancelled), `places_available`
 * when the places asked for can be bought now, `quantity_over_limit` beyond the tier's maximum (or 10).
 */
export async function joinWaitingList(ctx: ToolContext, input: JoinInput): Promise<EntryView> {
  const { em, principal, clock } = ctx;
  const now = clock.now();
  const offer = await readTierOffer(em, input.tierId);
  const tier = offer?.tier;
  const shop = offer?.shop;
  if (!tier || !shop || (principal.kind !== 'agent' && !mayAccessShop(principal, shop)))
    throw new ToolError('not_found', `No tier ${input.tierId}.`, { tierId: input.tierId });
  // An agent joins only where it may hold places (its buyer's permission for this shop), since an offer is a hold.
  if (principal.kind === 'agent')
    await authorizePurchase(ctx, {
      shop,
      amountMinor: tier.priceMinor * input.quantity,
      currency: tier.currency,
      stage: 'reserve',
    });
  if (!tier.waitingList || tier.retiredAt || offer.event?.cancelledAt)
    throw new ToolError('waiting_list_closed', undefined, { tierId: tier.id });
  const max = tier.maxQtyPerPurchase ?? MAX_WAITING_QUANTITY;
  if (input.quantity > max)
    throw new ToolError('quantity_over_limit', undefined, { maxQtyPerPurchase: max, requested: input.quantity });
  const email = input.email?.trim().toLowerCase();
  const personKey = personOf(principal, email);
  const [existing] = await sql<EntryRow>(
    em,
    `${ENTRY_SELECT} where w.tier_id = ? and w.person_key = ? and w.state in ('waiting', 'offered') for update of w`,
    [tier.id, personKey],
  );
  if (existing && (existing.state === 'waiting' || existing.state === 'offered')) return entryView(existing);
  if (existing) await closeEntry(em, existing.id, existing.state, now);
  if (offer.available >= input.quantity)
    throw new ToolError('places_available', undefined, { available: offer.available, requested: input.quantity });
  const { ownerKey, buyerId } = ownershipOf(principal);
  const mail = email ?? (buyerId ? (await em.findOne(Buyer, { id: buyerId }))?.email : undefined);
  const lang = input.lang ?? (principal.kind === 'buyer' ? principal.lang : undefined) ?? null;
  const id = newId('waitingListEntry', now);
  const inserted = await sql<{ id: string }>(
    em,
    `insert into waiting_list_entries (id, shop_id, organization_id, event_id, tier_id, pool_id, person_key, owner_key,
       buyer_id, email, lang, quantity, state, joined_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'waiting', ?, ?)
     on conflict (tier_id, person_key) where state in ('waiting', 'offered') do nothing returning id`,
    [
      id,
      shop.id,
      shop.organizationId,
      tier.eventId,
      tier.id,
      tier.poolId,
      personKey,
      ownerKey,
      buyerId,
      mail ?? null,
      lang,
      input.quantity,
      now,
      now,
    ],
  );
  // Places freed while this call read the pool go to those waiting, this entry included.
  await offerFreedPlaces(em, tier.poolId, now);
  const [row] = await sql<EntryRow>(
    em,
    `${ENTRY_SELECT} where w.tier_id = ? and w.person_key = ? order by w.line_no desc`,
    [tier.id, personKey],
  );
  if (!inserted.length && !row) throw new ToolError('conflict', 'Joining raced with another join; retry.');
  return entryView(row!);
}

/** Records an offered entry's outcome (from its hold) as stored, so the person may join again. */
async function closeEntry(em: EntityManager, id: string, state: string, now: Date): Promise<void> {
  await sql(em, `update waiting_list_entries set state = ?, ended_at = ?, updated_at = ? where id = ?`, [
    state,
    now,
    now,
    id,
  ]);
}

/**
 * Takes an entry off the list (`left` by its person, `removed` by the merchant); an open offer's hold is released,
 * and its places pass to the next in line. Ended entries come back unchanged; an offer being paid for is refused with
 * `payment_in_flight`.
 */
export async function endEntry(ctx: ToolContext, id: string, how: 'left' | 'removed'): Promise<EntryView> {
  const { em, principal, clock } = ctx;
  const now = clock.now();
  const row = await requireEntry(em, principal, id, { lock: true });
  if (row.state !== 'waiting' && row.state !== 'offered') return entryView(row, how === 'removed');
  if (row.state === 'offered' && row.reservation_id) {
    const r = await em.findOneOrFail(Reservation, { id: row.reservation_id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (r.state === 'confirming') throw new ToolError('payment_in_flight', undefined, { reservationId: r.id });
    if (r.state === 'held') {
      await releasePlaces(em, r, 'buyer', now);
      await emitPurchaseEvent(em, 'reservation.released', r, now);
    }
  }
  await closeEntry(em, id, how, now);
  return entryView(await requireEntry(em, principal, id), how === 'removed');
}

/** One entry the caller may see (its person, their agent, the shop's merchant). */
export async function getEntry(ctx: Pick<ToolContext, 'em' | 'principal'>, id: string): Promise<EntryView> {
  const row = await requireEntry(ctx.em, ctx.principal, id);
  return entryView(row, ctx.principal.kind === 'api_key' || ctx.principal.kind === 'console_user');
}
