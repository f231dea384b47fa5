/** start_card_setup: begins saving a card for the session's shop (or resumes the buyer's unfinished setup there). */
import { z } from 'zod';
import { formUrlFor, setupOut, startCardSetup } from '../../domain/buyers/card-setups.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { SetupOut } from './schemas.ts';

export const startCardSetupTool = defineTool({
  name: 'start_card_setup',
  title: 'Start saving a card',
  area: 'buyer',
  description:
    'Starts a card setup for the shop this session is for, with the shop’s payment connection. Frame `formUrl` (the ' +
    'provider’s hosted card form: card numbers never reach this API); it yields a payment method to pass to ' +
    'complete_card_setup, then save_card stores the card. An unfinished setup is kept for one day and returned again ' +
    'here (resume). Full sessions only.',
  input: z.strictObject({}),
  output: SetupOut,
  errors: ['session_shop_required', 'not_found', 'provider_not_enabled'],
  auth: { principals: ['buyer'], fullBuyer: true },
  http: { method: 'POST', path: '/v1/buyer/card-setups', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(_input, ctx) {
    const setup = await startCardSetup(ctx);
    return setupOut(setup, formUrlFor(ctx, setup));
  },
});
