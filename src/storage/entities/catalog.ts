/** The catalog: shops, their events, inventory pools (the oversell arbiter) and priced tiers. */
import { defineEntity, p } from '@mikro-orm/core';
import type { AttendeeFormRow } from '../attendee-rows.ts';

export const Shop = defineEntity({
  name: 'Shop',
  tableName: 'shops',
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    name: p.string(),
    currency: p.string(),
    discoverable: p.boolean().default(false),
    embedOrigins: p.array().default([]),
    holdMinutes: p.integer().default(10),
    feePerTicketMinor: p.integer().default(0),
    paymentProvider: p.string().default('sandbox'),
    description: p.string().nullable(),
    /** Tax and invoicing (src/domain/purchase/tax-settings.ts); null: prices carry no tax and no invoices are made. */
    taxSettings: p.json<Record<string, unknown>>().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime().nullable(),
    deletedAt: p.datetime().nullable(),
  },
});
export type ShopRow = InstanceType<typeof Shop.class>;

export const Event = defineEntity({
  name: 'Event',
  tableName: 'events',
  properties: {
    id: p.string().primary(),
    shopId: p.string(),
    title: p.string(),
    venue: p.string().nullable(),
    startsAt: p.datetime(),
    endsAt: p.datetime().nullable(),
    /** IANA time zone buyers see the event's times in. */
    timeZone: p.string().default('UTC'),
    createdAt: p.datetime(),
    updatedAt: p.datetime().nullable(),
    cancelledAt: p.datetime().nullable(),
  },
});
export type EventRow = InstanceType<typeof Event.class>;

export const Pool = defineEntity({
  name: 'Pool',
  tableName: 'pools',
  properties: {
    id: p.string().primary(),
    shopId: p.string(),
    eventId: p.string().nullable(),
    title: p.string().nullable(),
    capacity: p.integer(),
    availableCount: p.integer(),
    authority: p.string().default('tessera'),
    createdAt: p.datetime(),
  },
});
export type PoolRow = InstanceType<typeof Pool.class>;

export const Tier = defineEntity({
  name: 'Tier',
  tableName: 'tiers',
  properties: {
    id: p.string().primary(),
    shopId: p.string(),
    eventId: p.string(),
    poolId: p.string(),
    name: p.string(),
    priceMinor: p.integer(),
    currency: p.string(),
    onSaleStart: p.datetime().nullable(),
    onSaleEnd: p.datetime().nullable(),
    maxQtyPerPurchase: p.integer().nullable(),
    sellable: p.boolean().default(true),
    allowedGeos: p.array().default([]),
    allowedSchemes: p.array().default([]),
    /** The attendee name and questions the tier asks per ticket (null: none; src/storage/attendee-rows.ts). */
    attendeeForm: p.json<AttendeeFormRow>().nullable(),
    /** The tax rate (an id of the shop's taxSettings.rates) of this tier's price; null: the shop's default rate. */
    taxRateId: p.string().nullable(),
    /** Whether buyers may join the tier's waiting list when it is sold out (docs/purchase-spine.md, "Waiting list"). */
    waitingList: p.boolean().default(true),
    /** How long a waiting-list offer holds its places; null: 30 minutes. */
    waitingListOfferMinutes: p.integer().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime().nullable(),
    retiredAt: p.datetime().nullable(),
  },
});
export type TierRow = InstanceType<typeof Tier.class>;
