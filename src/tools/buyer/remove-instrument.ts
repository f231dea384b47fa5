/** remove_instrument: the buyer removes a saved card (narrowing: no code, bounded sessions too). */
import { z } from 'zod';
import { removeCard } from '../../domain/buyers/card-removal.ts';
import { defineTool } from '../../orchestrator/tool.ts';

export const removeInstrumentTool = defineTool({
  name: 'remove_instrument',
  title: 'Remove a saved card',
  area: 'buyer',
  description:
    'Removes a saved card: it is no longer listed nor charged, and the permissions that charge it are revoked ' +
    '(reason card_removed). Narrowing authority needs no code; a bounded session may remove its shop’s cards.',
  input: z.strictObject({ id: z.string().min(1).max(100).describe('The saved card (ins_…).') }),
  output: z.object({
    removed: z.literal(true),
    revokedPermissions: z.number().int().describe('How many live permissions charging the card were revoked.'),
  }),
  errors: ['instrument_not_found'],
  auth: { principals: ['buyer'] },
  http: { method: 'DELETE', path: '/v1/buyer/instruments/{id}' },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async handler({ id }, ctx) {
    return removeCard(ctx, id);
  },
});
