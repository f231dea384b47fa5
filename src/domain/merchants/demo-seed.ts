/** Demo data for the first embedded start: an organization, a discoverable shop, an event, a pool and tiers. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Event, Pool, Tier } from '../../storage/entities/catalog.ts';
import { newId } from '../../storage/ids.ts';
import { bootstrapOrganization, type BootstrapResult } from './merchants.ts';

/** The demo organization's owner: sign in to the console with this address (the link lands in the mail outbox). */
export const DEMO_OWNER_EMAIL = 'owner@demo.tessera.local';

/**
 * Where a buyer signs in to try the demo: for the demo shop, so the session (full, after the e-mailed link) can save a
 * card there and grant an agent a permission; a sign-in without a shop can do neither (cards belong to a shop).
 */
export function demoBuyerSignInUrl(baseUrl: string, demo: { shopId: string } | undefined): string {
  return demo ? `${baseUrl}/buyer/sign-in?merchantId=${encodeURIComponent(demo.shopId)}` : `${baseUrl}/buyer/sign-in`;
}

export interface DemoData extends BootstrapResult {
  eventId: string;
  poolId: string;
  tierIds: string[];
}

export async function seedDemo(em: EntityManager, now: Date): Promise<DemoData> {
  const base = await bootstrapOrganization(
    em,
    {
      organization: 'Demo Promotions',
      email: DEMO_OWNER_EMAIL,
      shop: 'Demo Arena',
      currency: 'EUR',
      scopes: ['merchant:read', 'merchant:write', 'merchant:admin'],
      discoverable: true,
    },
    now,
  );
  const startsAt = new Date(now.getTime() + 30 * 24 * 3600 * 1000);
  const eventId = newId('event', now);
  em.create(Event, {
    id: eventId,
    shopId: base.shopId,
    title: 'The Midnight Owls — Live',
    venue: 'Demo Arena, Budapest',
    startsAt,
    endsAt: new Date(startsAt.getTime() + 3 * 3600 * 1000),
    createdAt: now,
  });
  const poolId = newId('pool', now);
  em.create(Pool, {
    id: poolId,
    shopId: base.shopId,
    eventId,
    title: 'Arena floor and stands',
    capacity: 500,
    availableCount: 500,
    authority: 'tessera',
    createdAt: now,
  });
  const tiers = [
    { name: 'General admission', priceMinor: 4500, maxQtyPerPurchase: 8 },
    { name: 'VIP', priceMinor: 12000, maxQtyPerPurchase: 4 },
  ].map((t) => {
    const id = newId('tier', now);
    em.create(Tier, {
      id,
      shopId: base.shopId,
      eventId,
      poolId,
      name: t.name,
      priceMinor: t.priceMinor,
      currency: 'EUR',
      onSaleStart: null,
      onSaleEnd: null,
      maxQtyPerPurchase: t.maxQtyPerPurchase,
      sellable: true,
      allowedGeos: [],
      allowedSchemes: [],
      createdAt: now,
    });
    return id;
  });
  await em.flush();
  return { ...base, eventId, poolId, tierIds: tiers };
}
