/** Row → wire conversions shared by tools (dates as RFC 3339 strings, shop id as merchantId). */
import { iso, isoOrNull } from '../../kernel/wire.ts';
import type { EventRow, PoolRow, ShopRow, TierRow } from '../../storage/entities/catalog.ts';

export function shopOut(s: ShopRow) {
  return {
    id: s.id,
    organizationId: s.organizationId,
    name: s.name,
    description: s.description ?? null,
    currency: s.currency,
    discoverable: s.discoverable,
    embedOrigin: s.embedOrigins.join(' '),
    embedOrigins: [...s.embedOrigins],
    holdMinutes: s.holdMinutes,
    feePerTicketMinor: s.feePerTicketMinor,
    paymentProvider: s.paymentProvider,
    createdAt: iso(s.createdAt),
  };
}

export function poolOut(p: PoolRow) {
  return {
    id: p.id,
    merchantId: p.shopId,
    ...(p.eventId ? { eventId: p.eventId } : {}),
    ...(p.title ? { title: p.title } : {}),
    capacity: p.capacity,
    availableCount: p.availableCount,
    authority: p.authority,
    createdAt: iso(p.createdAt),
  };
}

export function eventOut(e: EventRow) {
  return {
    id: e.id,
    merchantId: e.shopId,
    title: e.title,
    venue: e.venue ?? null,
    startsAt: iso(e.startsAt),
    endsAt: isoOrNull(e.endsAt),
    timeZone: e.timeZone,
    cancelledAt: isoOrNull(e.cancelledAt),
    createdAt: iso(e.createdAt),
  };
}

export function tierOut(t: TierRow, availableCount: number) {
  return {
    id: t.id,
    merchantId: t.shopId,
    eventId: t.eventId,
    poolId: t.poolId,
    name: t.name,
    priceMinor: t.priceMinor,
    currency: t.currency,
    onSaleStart: isoOrNull(t.onSaleStart),
    onSaleEnd: isoOrNull(t.onSaleEnd),
    maxQtyPerPurchase: t.maxQtyPerPurchase ?? null,
    sellable: t.sellable,
    allowedGeos: [...t.allowedGeos],
    allowedSchemes: [...t.allowedSchemes],
    availableCount,
    retiredAt: isoOrNull(t.retiredAt),
    createdAt: iso(t.createdAt),
    ...(t.attendeeForm ? { attendeeForm: t.attendeeForm } : {}),
  };
}
