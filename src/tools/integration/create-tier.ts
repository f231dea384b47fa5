/** create_tier: a priced tier on an event's pool, with its six restriction fields saved in the same write (spec §4.2). */
import { z } from 'zod';
import { requireShop } from '../../orchestrator/access.ts';
import { ToolError } from '../../orchestrator/errors.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { Event, Pool, Tier } from '../../storage/entities/catalog.ts';
import { newId } from '../../storage/ids.ts';
import { CardScheme, CountryCode, Currency, DateTime, Minor, TierOut } from '../schemas.ts';
import { tierOut } from '../serialize.ts';

export const createTier = defineTool({
  name: 'create_tier',
  title: 'Create a tier',
  area: 'integration',
  description:
    'Creates a priced tier (e.g. "General admission") selling from a pool of the same event. Restrictions are saved ' +
    'in the same write: `onSaleStart`/`onSaleEnd` (RFC 3339 or null), `maxQtyPerPurchase` (≥ 1 or null), `sellable` ' +
    '(default true), `allowedGeos` (ISO 3166-1 alpha-2 codes) and `allowedSchemes` (card schemes, lower case); an ' +
    'empty or absent list means no restriction. A field this operation does not know is refused with 400 unknown_field.',
  input: z.strictObject({
    eventId: z.string().min(1),
    poolId: z.string().min(1),
    name: z.string().trim().min(1).max(200),
    priceMinor: Minor,
    currency: Currency.optional().describe('Defaults to the shop currency; must equal it when given.'),
    onSaleStart: DateTime.nullable().optional(),
    onSaleEnd: DateTime.nullable().optional(),
    maxQtyPerPurchase: z.number().int().min(1).max(1000).nullable().optional(),
    sellable: z.boolean().optional(),
    allowedGeos: z.array(CountryCode).max(250).optional(),
    allowedSchemes: z.array(CardScheme).max(7).optional(),
  }),
  output: TierOut,
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:write'], roles: ['owner'] },
  http: { method: 'POST', path: '/v1/integration/tiers', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  idempotency: 'optional',
  async handler(input, { em, principal, clock }) {
    const event = await em.findOne(Event, { id: input.eventId });
    if (!event) throw new ToolError('not_found', `No event ${input.eventId}.`, { eventId: input.eventId });
    const shop = await requireShop(em, principal, event.shopId);
    const pool = await em.findOne(Pool, { id: input.poolId, shopId: shop.id });
    if (!pool) throw new ToolError('not_found', `No pool ${input.poolId} in this shop.`, { poolId: input.poolId });
    if (pool.eventId && pool.eventId !== event.id) {
      throw new ToolError('invalid_input', 'The pool belongs to another event.', { field: 'poolId' });
    }
    if (input.currency && input.currency !== shop.currency) {
      throw new ToolError('invalid_input', `Tiers are priced in the shop currency ${shop.currency}.`, { field: 'currency' });
    }
    if (input.onSaleStart && input.onSaleEnd && new Date(input.onSaleEnd) <= new Date(input.onSaleStart)) {
      throw new ToolError('invalid_input', 'onSaleEnd must be after onSaleStart.', { field: 'onSaleEnd' });
    }
    const tier = em.create(Tier, {
      id: newId('tier'),
      shopId: shop.id,
      eventId: event.id,
      poolId: pool.id,
      name: input.name,
      priceMinor: input.priceMinor,
      currency: shop.currency,
      onSaleStart: input.onSaleStart ? new Date(input.onSaleStart) : null,
      onSaleEnd: input.onSaleEnd ? new Date(input.onSaleEnd) : null,
      maxQtyPerPurchase: input.maxQtyPerPurchase ?? null,
      sellable: input.sellable ?? true,
      allowedGeos: [...new Set(input.allowedGeos ?? [])],
      allowedSchemes: [...new Set(input.allowedSchemes ?? [])],
      createdAt: clock.now(),
    });
    await em.flush();
    return tierOut(tier, pool.availableCount);
  },
});
