/** raise_card_cap: raises a saved card's spending cap, after the emailed code. */
import { z } from 'zod';
import { instrumentOut, raiseCardCap } from '../../domain/buyers/instruments.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { Minor } from '../../kernel/wire.ts';
import { CODE_PROOF_ERRORS, codeProof, InstrumentOut } from './schemas.ts';

export const raiseCardCapTool = defineTool({
  name: 'raise_card_cap',
  title: 'Raise a card’s spending cap',
  area: 'buyer',
  description:
    'Raises the most any single charge to a saved card may be. Needs a full session and the emailed code (purpose ' +
    'raise_card_cap); the new cap must be higher (lowering is lower_card_cap and needs no code).',
  input: z.strictObject({
    id: z.string().min(1).max(100).describe('The saved card (ins_…).'),
    spendingCapMinor: Minor,
    ...codeProof,
  }),
  output: InstrumentOut,
  errors: ['instrument_not_found', ...CODE_PROOF_ERRORS],
  auth: { principals: ['buyer'], fullBuyer: true },
  http: { method: 'POST', path: '/v1/buyer/instruments/{id}/raise-cap' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  transactional: false,
  async handler(input, ctx) {
    return instrumentOut(await raiseCardCap(ctx, input));
  },
});
