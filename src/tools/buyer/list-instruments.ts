/** list_instruments: the buyer's saved cards (a bounded session sees its shop's). */
import { z } from 'zod';
import { instrumentOut, listInstruments } from '../../domain/buyers/instruments.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { InstrumentOut } from './schemas.ts';

export const listInstrumentsTool = defineTool({
  name: 'list_instruments',
  title: 'List saved cards',
  area: 'buyer',
  description:
    'Lists the buyer’s saved cards with the shop and payment connection each is tied to and its spending cap. A bounded session sees only its shop’s.',
  input: z.strictObject({}),
  output: z.object({ instruments: z.array(InstrumentOut) }),
  errors: [],
  auth: { principals: ['buyer'] },
  http: { method: 'GET', path: '/v1/buyer/instruments' },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(_input, ctx) {
    return { instruments: (await listInstruments(ctx)).map(instrumentOut) };
  },
});
