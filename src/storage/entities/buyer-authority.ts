/** Spending authority: card setups, saved cards (instruments), permissions, recorded spends and the dev mail outbox. */
import { defineEntity, p } from '@mikro-orm/core';

/** One attempt to save a card through the provider's hosted form, for one buyer and shop. */
export const CardSetup = defineEntity({
  name: 'CardSetup',
  tableName: 'card_setups',
  properties: {
    id: p.string().primary(),
    buyerId: p.string(),
    shopId: p.string(),
    provider: p.string(),
    /** `pending` → `succeeded` | `failed` (a failed setup can be completed again with another card). */
    status: p.string(),
    paymentMethod: p.string().nullable(),
    scheme: p.string().nullable(),
    last4: p.string().nullable(),
    failureCode: p.string().nullable(),
    attempts: p.integer().default(0),
    instrumentId: p.string().nullable(),
    expiresAt: p.datetime(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type CardSetupRow = InstanceType<typeof CardSetup.class>;

/** A saved card, usable only for the shop and payment connection (provider) it was saved for. */
export const Instrument = defineEntity({
  name: 'Instrument',
  tableName: 'instruments',
  properties: {
    id: p.string().primary(),
    buyerId: p.string(),
    shopId: p.string(),
    provider: p.string(),
    setupId: p.string().unique(),
    paymentMethod: p.string(),
    scheme: p.string(),
    last4: p.string(),
    /** The most any single charge to this card may be; raised only with an emailed code. */
    spendingCapMinor: p.integer(),
    currency: p.string(),
    createdAt: p.datetime(),
    deletedAt: p.datetime().nullable(),
  },
});
export type InstrumentRow = InstanceType<typeof Instrument.class>;

/** A buyer's spending authority for one agent in one shop. */
export const Permission = defineEntity({
  name: 'Permission',
  tableName: 'permissions',
  properties: {
    id: p.string().primary(),
    buyerId: p.string(),
    agentId: p.string(),
    shopId: p.string(),
    organizationId: p.string(),
    instrumentId: p.string(),
    currency: p.string(),
    perPurchaseCapMinor: p.integer(),
    allowanceMinor: p.integer(),
    windowHours: p.integer(),
    expiresAt: p.datetime(),
    /** "Set up by <shop>" for permissions created by attested consent. */
    label: p.string().nullable(),
    attested: p.boolean().default(false),
    createdAt: p.datetime(),
    revokedAt: p.datetime().nullable(),
    revokedReason: p.string().nullable(),
    revokedBy: p.string().nullable(),
  },
});
export type PermissionRow = InstanceType<typeof Permission.class>;

/** Outgoing mail kept in the database when no SMTP server is configured (development). */
export const OutboxMail = defineEntity({
  name: 'OutboxMail',
  tableName: 'mail_outbox',
  properties: {
    id: p.string().primary(),
    toAddress: p.string(),
    subject: p.string(),
    textBody: p.string(),
    createdAt: p.datetime(),
  },
});
export type OutboxMailRow = InstanceType<typeof OutboxMail.class>;
