/** save_card: stores the card of a succeeded setup for the session's shop, after the emailed code. */
import { z } from 'zod';
import { instrumentOut, saveCard } from '../../domain/buyers/instruments.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { Minor } from '../../kernel/wire.ts';
import { CODE_PROOF_ERRORS, codeProof, InstrumentOut } from './schemas.ts';

export const saveCardTool = defineTool({
  name: 'save_card',
  title: 'Save a card',
  area: 'buyer',
  description:
    'Saves the card of a succeeded setup as an instrument tied to the shop and payment connection it was set up for, ' +
    'with a spending cap (the most any one charge may be). Needs a full session and the emailed code (purpose ' +
    'save_card). Retrying after the card was saved returns the same card (`reused: true`, 200) without a new code.',
  input: z.strictObject({
    setupId: z.string().min(1).max(100).describe('The completed card setup (from start_card_setup) to save.'),
    spendingCapMinor: Minor.describe('The most any single charge to this card may be, in minor units.'),
    ...codeProof,
  }),
  output: z.object({ instrument: InstrumentOut, reused: z.boolean() }),
  errors: ['not_found', 'card_setup_not_ready', 'limit_reached', ...CODE_PROOF_ERRORS],
  auth: { principals: ['buyer'], fullBuyer: true },
  http: { method: 'POST', path: '/v1/buyer/instruments', status: (out) => (out.reused ? 200 : 201) },
  successStatuses: [200, 201],
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  transactional: false,
  async handler(input, ctx) {
    const { instrument, reused } = await saveCard(ctx, input);
    return { instrument: instrumentOut(instrument), reused };
  },
});
