/** get_ticket_keys: the JWKS scanners verify ticket codes and voided lists with. */
import { z } from 'zod';
import { defineTool } from '../../orchestrator/tool.ts';
import { JwksOut } from './door-schemas.ts';

export const getTicketKeys = defineTool({
  name: 'get_ticket_keys',
  title: 'Get the ticket-signing keys',
  area: 'ticketing',
  description:
    'The public keys (a JWKS, Ed25519 / EdDSA) that sign ticket codes (`signedCode`) and voided-ticket lists. A scanner ' +
    'fetches it once and verifies codes offline; keys are rotated by adding a new one, and retired keys stay listed so ' +
    'codes issued before a rotation keep verifying. Public: no credential needed.',
  input: z.strictObject({}),
  output: JwksOut,
  errors: [],
  auth: { public: true, listed: ['anonymous', 'api_key', 'console_user', 'staff'] }, // for scanners
  http: { method: 'GET', path: '/v1/ticketing/ticket-keys' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler(_input, ctx) {
    return { keys: await ctx.services.ticketKeys.publicKeys(ctx.em) };
  },
});
