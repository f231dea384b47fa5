/**
 * A buyer's tickets, for the "My tickets" page: the orders the buyer may list (`order-list.ts`: its own and its
 * agents', across shops; a bounded session in its shop only), each with the shop, event and tier names, and every
 * ticket with the code its QR code shows and its door state.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../../kernel/principal.ts';
import { iso } from '../../kernel/wire.ts';
import { Event, Shop, Tier } from '../../storage/entities/catalog.ts';
import { Reservation } from '../../storage/entities/purchase.ts';
import { listOrders } from './order-list.ts';
import { namedLines, type OrderLine } from './order-lines.ts';
import type { OrderView } from './purchase-view.ts';

/** A ticket at the door: `valid` admits, `checked_in` was admitted, `void` no longer admits (refunded). */
export type TicketStatus = 'valid' | 'checked_in' | 'void';

export interface BuyerTicket {
  id: string;
  status: TicketStatus;
  /** What the QR code encodes: the verifiable signed code (the opaque code for a ticket issued without one). */
  qrContent: string;
  voidedAt: string | null;
  checkedInAt: string | null;
  /** The ticket's tier, when its order has tickets of several tiers (a multi-line purchase). */
  tierName?: string;
  /** The ticket's attendee, when the purchase gave one. */
  attendeeName?: string;
}

export interface BuyerOrderTickets {
  orderId: string;
  merchantId: string;
  shopName: string;
  eventId: string;
  eventTitle: string;
  eventVenue: string | null;
  eventStartsAt: string;
  eventTimeZone: string;
  tierName: string;
  /** An order of several tiers: each line's tier, name and places, in line order (`tierName` is the first's). */
  lines?: OrderLine[];
  state: OrderView['state'];
  createdAt: string;
  tickets: BuyerTicket[];
}

const withLines = (lines: OrderLine[] | undefined) => (lines ? { lines } : {});

const statusOf = (t: OrderView['tickets'][number]): TicketStatus =>
  t.state === 'void' ? 'void' : t.checkedInAt ? 'checked_in' : 'valid';

/** A page of the buyer's orders with their tickets, newest first. */
export async function listBuyerTickets(
  em: EntityManager,
  principal: Principal,
  page: { limit: number; cursor?: string | undefined },
): Promise<{ orders: BuyerOrderTickets[]; nextCursor?: string }> {
  const { orders, nextCursor } = await listOrders(em, principal, page);
  const unique = <T>(xs: T[]) => [...new Set(xs)];
  const [shops, events, tiers, lined] = await Promise.all([
    orders.length ? em.find(Shop, { id: { $in: unique(orders.map((o) => o.merchantId)) } }) : [],
    orders.length ? em.find(Event, { id: { $in: unique(orders.map((o) => o.eventId)) } }) : [],
    // Every ticket's tier too (the same set as the orders' for single-tier orders).
    orders.length
      ? em.find(Tier, { id: { $in: unique(orders.flatMap((o) => [o.tierId, ...o.tickets.map((t) => t.tierId)])) } })
      : [],
    // The lines of the multi-line orders (a ticket names its tier, not its line's place in the purchase).
    orders.length
      ? em.find(
          Reservation,
          { id: { $in: orders.map((o) => o.reservationId) }, lines: { $ne: null } },
          { fields: ['id', 'lines'] },
        )
      : [],
  ]);
  const nameOf = (id: string) => tiers.find((t) => t.id === id)?.name ?? id;
  const tiersOf = (o: OrderView) => unique([o.tierId, ...o.tickets.map((t) => t.tierId)]);
  const out = orders.map((o): BuyerOrderTickets => {
    const event = events.find((e) => e.id === o.eventId);
    return {
      orderId: o.id,
      merchantId: o.merchantId,
      shopName: shops.find((s) => s.id === o.merchantId)?.name ?? o.merchantId,
      eventId: o.eventId,
      eventTitle: event?.title ?? o.eventId,
      eventVenue: event?.venue ?? null,
      eventStartsAt: event ? iso(event.startsAt) : o.createdAt,
      eventTimeZone: event?.timeZone ?? 'UTC',
      tierName: nameOf(o.tierId), // a multi-line order's first tier; each ticket names its own (below)
      ...withLines(namedLines(lined.find((r) => r.id === o.reservationId)?.lines, nameOf)),
      state: o.state,
      createdAt: o.createdAt,
      tickets: o.tickets.map((t) => ({
        id: t.id,
        status: statusOf(t),
        qrContent: t.signedCode ?? t.code,
        voidedAt: t.voidedAt,
        checkedInAt: t.checkedInAt,
        ...(tiersOf(o).length > 1 ? { tierName: nameOf(t.tierId) } : {}),
        ...(t.attendeeName ? { attendeeName: t.attendeeName } : {}),
      })),
    };
  });
  return nextCursor ? { orders: out, nextCursor } : { orders: out };
}
