/** Builders for the purchase-spine tests: a harness with background loops off, and a shop with a priced tier. */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Database } from '../../src/storage/database.ts';
import { startHarness, type Harness } from './harness.ts';
import { restClient, type RestResponse } from './rest.ts';

export type Api = ReturnType<typeof restClient>;

/** Background loops are off: tests drive the sweeper and the sandbox settlement by hand after moving the clock. */
export function startSpineHarness(env: Record<string, string> = {}): Promise<Harness> {
  return startHarness({
    SWEEP_INTERVAL_MS: '0',
    SANDBOX_DISPATCH_MS: '0',
    WEBHOOK_DISPATCH_MS: '0',
    SANDBOX_SETTLE_MS: '3000',
    RATE_LIMIT_PER_MINUTE: '100000',
    ...env,
  });
}

export interface TierOptions {
  capacity?: number;
  priceMinor?: number;
  feePerTicketMinor?: number;
  holdMinutes?: number;
  restrictions?: Record<string, unknown>;
}

export interface Shop {
  api: Api;
  apiKey: string;
  organizationId: string;
  shopId: string;
  eventId: string;
  poolId: string;
  tierId: string;
}

export function must<T>(res: RestResponse<T>, status: number): T {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A new organization with a shop (fee and hold time as asked), an event, a pool and one tier. */
export async function shopWithTier(h: Harness, opts: TierOptions = {}): Promise<Shop> {
  const m = await h.merchant();
  const api = restClient(h.url, m.apiKey);
  const shop = must(
    await api.post('/v1/integration/shops', {
      name: 'Spine Shop',
      currency: 'EUR',
      feePerTicketMinor: opts.feePerTicketMinor ?? 0,
      holdMinutes: opts.holdMinutes ?? 10,
    }),
    201,
  );
  const made = await eventWithTier(h, api, shop.id, {
    capacity: opts.capacity ?? 10,
    priceMinor: opts.priceMinor ?? 5000,
    restrictions: opts.restrictions,
  });
  return { api, apiKey: m.apiKey, organizationId: m.organizationId, shopId: shop.id, ...made };
}

/**
 * At the shop `shopId`, through `api`: an event (`title`, default "Concert") 30 days from the harness clock's now, a
 * pool of `capacity` places and one tier (`name`, default "General admission") at `priceMinor` with `restrictions`.
 */
export async function eventWithTier(
  h: Harness,
  api: Api,
  shopId: string,
  opts: { capacity: number; priceMinor: number; restrictions?: Record<string, unknown>; title?: string; name?: string },
): Promise<{ eventId: string; poolId: string; tierId: string }> {
  const startsAt = new Date(h.clock.now().getTime() + 30 * 86_400_000).toISOString();
  const event = must(
    await api.post('/v1/integration/events', { merchantId: shopId, title: opts.title ?? 'Concert', startsAt }),
    201,
  );
  const pool = must(
    await api.post('/v1/integration/pools', { merchantId: shopId, eventId: event.id, capacity: opts.capacity }),
    201,
  );
  const tier = must(
    await api.post('/v1/integration/tiers', {
      eventId: event.id,
      poolId: pool.id,
      name: opts.name ?? 'General admission',
      priceMinor: opts.priceMinor,
      ...opts.restrictions,
    }),
    201,
  );
  return { eventId: event.id, poolId: pool.id, tierId: tier.id };
}

export const key = (): Record<string, string> => ({ 'idempotency-key': randomUUID() });

/** quote → reserve; returns the reservation view. */
export async function reserveOne(api: Api, tierId: string, quantity = 1, extra: Record<string, unknown> = {}) {
  const q = must(await api.post('/v1/ticketing/quotes', { tierId, quantity, ...extra }), 201);
  return must(await api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key()), 201);
}

export const confirmWith = (api: Api, reservationId: string, paymentMethod: string, headers = key()) =>
  api.post(`/v1/ticketing/reservations/${reservationId}/confirm`, { paymentMethod }, headers);

/** `select count(*)` of a query, e.g. `count(db, 'from tickets where order_id = ?', [id])`. */
export async function count(db: Database, fromWhere: string, params: unknown[] = []): Promise<number> {
  const [row] = await db.execute<{ n: number }>(`select count(*)::int as n ${fromWhere}`, params);
  return row?.n ?? 0;
}
