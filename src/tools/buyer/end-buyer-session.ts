/** end_buyer_session: sign out of the buyer pages: the page session ends server-side and its cookie is cleared. */
import { z } from 'zod';
import { endPageSession } from '../../domain/merchants/console-sign-in.ts';
import { defineTool } from '../../orchestrator/tool.ts';

export const endBuyerSession = defineTool({
  name: 'end_buyer_session',
  title: 'Sign out of the buyer pages',
  area: 'buyer',
  description:
    'Signs out: the buyer page session (its HttpOnly cookie) the call is made with ends now, server-side, and REST ' +
    'clears the cookie. `ended` is false for a bearer token, which cannot be ended early: it expires.',
  input: z.strictObject({}),
  output: z.object({ ended: z.boolean().describe('Whether a page session was ended by this call.') }),
  errors: [],
  auth: { principals: ['buyer'] },
  http: { method: 'POST', path: '/v1/buyer/session/end' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  pageSession: { kind: 'buyer', effect: 'ends' },
  transactional: false, // one statement of its own (src/storage/web-sessions.ts)
  async handler(_input, ctx) {
    return endPageSession(ctx);
  },
});
