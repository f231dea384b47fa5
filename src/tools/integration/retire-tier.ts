/** retire_tier: stop selling a tier for good. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { retireTier as retire } from '../../domain/catalog/catalog-changes.ts';
import { tierOut } from '../../domain/catalog/serialize.ts';
import { TierOut } from '../catalog/schemas.ts';
import { defineTool } from '../../orchestrator/tool.ts';

export const retireTier = defineTool({
  name: 'retire_tier',
  title: 'Retire a tier',
  area: 'integration',
  description:
    'Retires a tier for good: no new quote or reserve (tier_retired), gone from the public window and feed; holds ' +
    'already made stay until released or expired, and its pool keeps serving the other tiers. Retiring twice answers ' +
    'tier_retired. Emits the `tier.retired` webhook event. Requires merchant:write (console: the owner).',
  input: z.strictObject({ id: IdRef.describe('The tier id (tier_…).') }),
  output: TierOut,
  errors: ['not_found', 'tier_retired'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:write'], roles: ['owner'] },
  http: { method: 'POST', path: '/v1/integration/tiers/{id}/retire' },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  idempotency: 'optional',
  async handler({ id }, ctx) {
    const { tier, availableCount } = await retire(ctx, id);
    return tierOut(tier, availableCount);
  },
});
