/** lower_card_cap: lowers a saved card's spending cap (narrowing: no code, bounded sessions too). */
import { z } from 'zod';
import { instrumentOut, lowerCardCap } from '../../domain/buyers/instruments.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { Minor } from '../../kernel/wire.ts';
import { InstrumentOut } from './schemas.ts';

export const lowerCardCapTool = defineTool({
  name: 'lower_card_cap',
  title: 'Lower a card’s spending cap',
  area: 'buyer',
  description:
    'Lowers the most any single charge to a saved card may be. Narrowing authority needs no code; a bounded session may lower its shop’s cards.',
  input: z.strictObject({
    id: z.string().min(1).max(100).describe('The saved card (ins_…).'),
    spendingCapMinor: Minor,
  }),
  output: InstrumentOut,
  errors: ['instrument_not_found'],
  auth: { principals: ['buyer'] },
  http: { method: 'POST', path: '/v1/buyer/instruments/{id}/lower-cap' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    return instrumentOut(await lowerCardCap(ctx, input.id, input.spendingCapMinor));
  },
});
