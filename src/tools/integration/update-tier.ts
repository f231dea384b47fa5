/** update_tier: change a tier's name, price (new quotes only) or its six restrictions. */
import { z } from 'zod';
import { updateTier as changeTier } from '../../domain/catalog/catalog-changes.ts';
import { tierOut } from '../../domain/catalog/serialize.ts';
import { IdRef, Minor } from '../../kernel/wire.ts';
import { TierOut } from '../catalog/schemas.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { TierRestrictionsIn } from './tier-restrictions-input.ts';
import { AttendeeFormIn } from '../ticketing/attendee-schemas.ts';

export const updateTier = defineTool({
  name: 'update_tier',
  title: 'Change a tier',
  area: 'integration',
  description:
    'Changes a tier’s `name`, `priceMinor` or restrictions (as in create_tier); fields left out keep their value. ' +
    'A new price applies to new quotes only. The currency and pool cannot change; a retired tier cannot change ' +
    '(tier_retired). Emits `tier.updated`. Requires merchant:write (console: the owner).',
  input: z.strictObject({
    id: IdRef.describe('The tier id (tier_…).'),
    name: z.string().trim().min(1).max(200).optional().describe('The new public name.'),
    priceMinor: Minor.optional(),
    ...TierRestrictionsIn,
    ...AttendeeFormIn,
  }),
  output: TierOut,
  errors: ['not_found', 'tier_retired'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:write'], roles: ['owner'] },
  http: { method: 'PATCH', path: '/v1/integration/tiers/{id}' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  idempotency: 'optional',
  async handler({ id, ...changes }, ctx) {
    const { tier, availableCount } = await changeTier(ctx, id, changes);
    return tierOut(tier, availableCount);
  },
});
