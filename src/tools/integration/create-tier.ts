/**
 * create_tier: a priced tier on an event's pool, with its six restriction fields saved in the same write (spec §4.2).
 */
import { z } from 'zod';
import { createTier as createEventTier } from '../../domain/catalog/catalog.ts';
import { tierOut } from '../../domain/catalog/serialize.ts';
import { Currency, IdRef, Minor } from '../../kernel/wire.ts';
import { TierOut } from '../catalog/schemas.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { TierRestrictionsIn } from './tier-restrictions-input.ts';
import { AttendeeFormIn } from '../ticketing/attendee-schemas.ts';

export const createTier = defineTool({
  name: 'create_tier',
  title: 'Create a tier',
  area: 'integration',
  description:
    'Creates a priced tier (e.g. "General admission") selling from a pool of the same event, with its ' +
    'restrictions in the same write: `onSaleStart`/`onSaleEnd`, `maxQtyPerPurchase`, `sellable` (default true), ' +
    '`allowedGeos` and `allowedSchemes` (an empty or absent list: no restriction). An unknown field is refused ' +
    'with unknown_field.',
  input: z.strictObject({
    eventId: IdRef.describe('The event (evt_…) the tier sells.'),
    poolId: IdRef.describe('The pool (pool_…) whose places the tier sells; tiers of one pool share its capacity.'),
    name: z.string().trim().min(1).max(200).describe('The tier’s public name, e.g. General admission.'),
    priceMinor: Minor,
    currency: Currency.optional().describe('Defaults to the shop currency; must equal it when given.'),
    ...TierRestrictionsIn,
    ...AttendeeFormIn,
  }),
  output: TierOut,
  errors: ['not_found', 'insufficient_scope', 'limit_reached'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:write'], roles: ['owner'] },
  http: { method: 'POST', path: '/v1/integration/tiers', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  idempotency: 'optional',
  async handler(input, ctx) {
    const { tier, availableCount } = await createEventTier(ctx, input);
    return tierOut(tier, availableCount);
  },
});
