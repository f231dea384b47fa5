/** rotate_ticket_signing_key: staff retire the active ticket-signing key and activate a new one. */
import { z } from 'zod';
import { rotateTicketKey } from '../../domain/check-in/ticket-key-rotation.ts';
import { MAX_TICKET_KEYS } from '../../domain/limits.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { JwksOut } from './door-schemas.ts';

export const rotateTicketSigningKey = defineTool({
  name: 'rotate_ticket_signing_key',
  title: 'Rotate the ticket-signing key',
  area: 'operations',
  description:
    'Service staff only. Retires the active ticket-signing key and activates a new one: new tickets are signed with ' +
    'the new key; the retired key stays in the JWKS, so codes already issued keep verifying. At most ' +
    `${MAX_TICKET_KEYS} keys are kept: past that, limit_reached.`,
  input: z.strictObject({}),
  output: JwksOut.extend({ activeKid: z.string().describe('The key id new tickets are signed with.') }),
  errors: ['limit_reached'],
  auth: { principals: ['staff'] },
  http: { method: 'POST', path: '/v1/staff/ticket-keys/rotate' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  transactional: false,
  async handler(_input, ctx) {
    const activeKid = await rotateTicketKey(ctx);
    return { activeKid, keys: await ctx.services.ticketKeys.publicKeys() };
  },
});
