/** set_waiting_list: a tier's waiting list on or off, and how long its offers hold places. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { setWaitingList as set } from '../../domain/purchase/waiting-list-admin.ts';
import { defineTool } from '../../orchestrator/tool.ts';

export const setWaitingList = defineTool({
  name: 'set_waiting_list',
  title: 'Set a tier’s waiting list',
  area: 'ticketing',
  description:
    'Turns a tier’s waiting list on or off (on by default) and sets how long an offer holds its places ' +
    '(`offerMinutes`, 1 to 10080; null: 30). Entries stay when it is off but get no offers; turning it on offers ' +
    'places already free.',
  input: z.strictObject({
    tierId: IdRef.describe('The tier (tier_…).'),
    enabled: z.boolean().optional().describe('Whether people may join the tier’s list and get offers.'),
    offerMinutes: z
      .number()
      .int()
      .min(1)
      .max(10_080)
      .nullable()
      .optional()
      .describe('How long an offer holds its places, in minutes (null: 30).'),
  }),
  output: z.object({
    tierId: z.string().max(100),
    enabled: z.boolean(),
    offerMinutes: z.number().int().min(1).max(10_080),
    waiting: z.number().int().min(0).describe('Entries waiting now.'),
    updatedAt: z.string().max(40),
  }),
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:write'], roles: ['owner'] },
  http: { method: 'PUT', path: '/v1/integration/tiers/{tierId}/waiting-list' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  idempotency: 'optional',
  async handler({ tierId, ...changes }, ctx) {
    return set(ctx, tierId, changes);
  },
});
