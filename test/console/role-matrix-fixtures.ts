/**
 * The role-by-operation matrix's principals and fixtures (role-matrix-ops.ts holds its rows): fresh objects for the
 * destructive operations' inputs, made through the API in the test file's world, and the sets of principals a row admits.
 */
import { randomUUID } from 'node:crypto';
import { restClient } from '../support/rest.ts';
import { reserveOne } from '../support/spine.ts';
import {
  createAgent,
  limits,
  must,
  newEmail,
  saveCard,
  signIn,
  type MerchantShop,
  type World,
} from '../support/buyers.ts';

let w: World;
/** Hands the test file's world to the rows' inputs (called once it has started). */
export function useWorld(world: World): void {
  w = world;
}
/** The test file's world (after `useWorld`). */
export const world = (): World => w;

export const PRINCIPALS = [
  'owner',
  'integrator',
  'key:read',
  'key:write',
  'key:admin',
  'key:attest',
  'key:integrator',
  'buyer',
  'agent',
] as const;
export type P = (typeof PRINCIPALS)[number];

export interface Org {
  m: MerchantShop;
  tokens: Record<P, string>;
  integratorId: string;
}

export interface Op {
  tool: string;
  allowed: readonly P[];
  /** The input for one call as `who` (fresh objects for destructive operations). */
  input(o: Org, who: P): Promise<Record<string, unknown>>;
  /** Whether another organization's owner gets 404 for this input (object-scoped operations). */
  scoped?: boolean;
}

export const admin = (o: Org) => restClient(w.h.url, o.m.apiKey);
export const future = () => new Date(w.h.clock.now().getTime() + 20 * 86_400_000).toISOString();
export const freshShop = async (o: Org) =>
  must(await admin(o).post('/v1/integration/shops', { name: 'Spare', currency: 'EUR' }), 201).id as string;
export const freshEvent = async (o: Org) =>
  must(
    await admin(o).post('/v1/integration/events', { merchantId: o.m.shopId, title: 'Spare', startsAt: future() }),
    201,
  ).id as string;
export const freshTier = async (o: Org) =>
  must(
    await admin(o).post('/v1/integration/tiers', {
      eventId: o.m.eventId,
      poolId: o.m.poolId,
      name: 'Spare',
      priceMinor: 100,
    }),
    201,
  ).id as string;
export async function freshMember(o: Org): Promise<string> {
  const id = `usr_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
  await w.h.db.execute('insert into users (id, email, name, is_staff, created_at) values (?, ?, null, false, now())', [
    id,
    `${id}@example.test`,
  ]);
  await w.h.db.execute(
    `insert into memberships (user_id, organization_id, role, invited_by, created_at) values (?, ?, 'integrator', null, now())`,
    [id, o.m.organizationId],
  );
  return id;
}

const webhooks = new Map<Org, string>();
/** One webhook of the organization's shop, made once (a shop has at most 16). */
export async function aWebhook(o: Org): Promise<string> {
  if (!webhooks.has(o))
    webhooks.set(
      o,
      must(
        await admin(o).post('/v1/integration/webhooks', {
          merchantId: o.m.shopId,
          url: 'https://hooks.example/m',
          events: ['order.completed'],
        }),
        201,
      ).id,
    );
  return webhooks.get(o)!;
}
export const freshWebhook = async (o: Org) =>
  must(
    await admin(o).post('/v1/integration/webhooks', {
      merchantId: o.m.shopId,
      url: 'https://hooks.example/d',
      events: ['order.completed'],
    }),
    201,
  ).id as string;
/** A delivery that is no longer pending (a test event marked failed), so it may be redelivered. */
export async function settledDelivery(o: Org): Promise<{ id: string; deliveryId: string }> {
  const id = await aWebhook(o);
  const deliveryId = must(await admin(o).post(`/v1/integration/webhooks/${id}/test`, {}), 201).id as string;
  await w.h.db.execute(`update webhook_deliveries set status = 'failed', next_attempt_at = null where id = ?`, [
    deliveryId,
  ]);
  return { id, deliveryId };
}
const attested = new Map<Org, string>();
/**
 * A permission created under attested consent (an attest key mints the buyer's session), made once per organization.
 */
export async function attestedPermission(o: Org): Promise<string> {
  if (!attested.has(o)) {
    const email = newEmail();
    const full = await signIn(w, email, o.m.shopId);
    const instrument = await saveCard(w, full, email);
    const { agent } = await createAgent(w, full, email);
    const session = must(
      await restClient(w.h.url, o.tokens['key:attest']).post('/v1/integration/buyer-sessions', {
        merchantId: o.m.shopId,
        email,
        merchantAttested: true,
      }),
      201,
    );
    const p = must(
      await restClient(w.h.url, session.token).post('/v1/buyer/permissions', {
        agentId: agent.id,
        instrumentId: instrument.id,
        ...limits(w, { perPurchaseCapMinor: 5000, allowanceMinor: 10_000 }),
      }),
      201,
    );
    attested.set(o, p.id);
  }
  return attested.get(o)!;
}

export const freshDiscountCode = async (o: Org) =>
  must(
    await admin(o).post('/v1/integration/discount-codes', {
      merchantId: o.m.shopId,
      code: `M${randomUUID().slice(0, 8)}`,
      kind: 'percent',
      percentOff: 10,
    }),
    201,
  ).id as string;
const soldOut = new Map<Org, string>();
/** A tier whose one place is held, so people may join its waiting list; made once per organization. */
async function soldOutTier(o: Org): Promise<string> {
  if (!soldOut.has(o)) {
    const pool = must(await admin(o).post('/v1/integration/pools', { merchantId: o.m.shopId, capacity: 1 }), 201);
    const tier = { eventId: o.m.eventId, poolId: pool.id, name: 'Scarce', priceMinor: 100 };
    const tierId = must(await admin(o).post('/v1/integration/tiers', tier), 201).id as string;
    await reserveOne(admin(o), tierId);
    soldOut.set(o, tierId);
  }
  return soldOut.get(o)!;
}
/** A new entry on the sold-out tier's waiting list. */
export const freshEntry = async (o: Org) =>
  must(
    await admin(o).post('/v1/ticketing/waiting-list', { tierId: await soldOutTier(o), quantity: 1, email: newEmail() }),
    200,
  ).id as string;

export const READERS: readonly P[] = ['owner', 'integrator', 'key:read', 'key:integrator'];
export const SHOPPERS: readonly P[] = ['owner', 'integrator', 'key:read', 'key:integrator', 'buyer', 'agent'];
/** What an integrator and its key may write besides reading: webhooks. */
export const WEBHOOK_WRITERS: readonly P[] = ['owner', 'integrator', 'key:write', 'key:integrator'];
export const CATALOG_WRITERS: readonly P[] = ['owner', 'key:write'];
export const ADMINS: readonly P[] = ['owner', 'key:admin'];
export const CONSOLE: readonly P[] = ['owner', 'integrator'];
export const OWNER: readonly P[] = ['owner'];
