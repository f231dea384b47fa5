/**
 * discard_card_setup: drops the buyer's unsaved card setup so that start_card_setup begins a new one ("use another
 * card").
 */
import { z } from 'zod';
import { discardCardSetup, formUrlFor, setupOut } from '../../domain/buyers/card-setups.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { SetupOut } from './schemas.ts';

export const discardCardSetupTool = defineTool({
  name: 'discard_card_setup',
  title: 'Discard a card setup',
  area: 'buyer',
  description:
    'Discards an unsaved card setup (pending, failed or succeeded): it ends now and is never completed or saved ' +
    '(card_setup_not_ready), so start_card_setup begins a new one, to use another card. Idempotent. A setup whose ' +
    'card was saved is left as it is (`discarded: false`). Sessions of the same buyer and shop; other setups are ' +
    '404.',
  input: z.strictObject({ id: z.string().min(1).max(100).describe('The setup (cset_…).') }),
  output: SetupOut.extend({
    discarded: z.boolean().describe('False when the setup’s card was already saved (nothing changed).'),
  }),
  errors: ['not_found'],
  auth: { principals: ['buyer'] },
  http: { method: 'POST', path: '/v1/buyer/card-setups/{id}/discard' },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    const { setup, discarded } = await discardCardSetup(ctx, input.id);
    return { ...setupOut(setup, formUrlFor(ctx, setup)), discarded };
  },
});
