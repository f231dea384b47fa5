/**
 * complete_card_setup: the provider prepares the card the hosted form produced; setup errors tell the buyer what to do.
 */
import { z } from 'zod';
import { completeCardSetup, formUrlFor, setupOut } from '../../domain/buyers/card-setups.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { SetupOut } from './schemas.ts';

export const completeCardSetupTool = defineTool({
  name: 'complete_card_setup',
  title: 'Complete a card setup',
  area: 'buyer',
  description:
    'Completes a setup with the payment method the hosted card form produced: the provider prepares it for later ' +
    'charges. 503 card_preparation_unavailable: retry. 422 card_not_chargeable / card_customer_mismatch: the buyer ' +
    'must correct the setup (use another card). A setup that already succeeded is reused unchanged (`reused: true`).',
  input: z.strictObject({
    id: z.string().min(1).max(100).describe('The setup (cset_…).'),
    paymentMethod: z.string().min(1).max(100).describe('The payment method the hosted card form posted.'),
  }),
  output: SetupOut.extend({ reused: z.boolean() }),
  errors: [
    'not_found',
    'card_preparation_unavailable',
    'card_not_chargeable',
    'card_customer_mismatch',
    'card_setup_not_ready',
    'unknown_payment_method',
  ],
  auth: { principals: ['buyer'], fullBuyer: true },
  http: { method: 'POST', path: '/v1/buyer/card-setups/{id}/complete' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  transactional: false,
  async handler(input, ctx) {
    const { setup, reused } = await completeCardSetup(ctx, input.id, input.paymentMethod);
    return { ...setupOut(setup, formUrlFor(ctx, setup)), reused };
  },
});
