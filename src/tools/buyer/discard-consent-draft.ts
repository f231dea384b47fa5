/** discard_consent_draft: the buyer confirmed "Discard this setup?" in the consent view; the draft is gone. */
import { z } from 'zod';
import { discardDraft } from '../../domain/buyers/consent-drafts.ts';
import { defineTool } from '../../orchestrator/tool.ts';

export const discardConsentDraftTool = defineTool({
  name: 'discard_consent_draft',
  title: 'Discard the consent-view draft',
  area: 'buyer',
  description:
    'Discards the buyer’s unfinished consent-view setup for the session’s shop (after the buyer confirmed "Discard ' +
    'this setup?"): the next opening of the view starts over. `discarded` is false when there was no live draft. ' +
    'Idempotent. Any buyer session for a shop, bounded too.',
  input: z.strictObject({}),
  output: z.object({ discarded: z.boolean() }),
  errors: ['session_shop_required'],
  auth: { principals: ['buyer'] },
  http: { method: 'POST', path: '/v1/buyer/consent-draft/discard' },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async handler(_input, ctx) {
    return { discarded: await discardDraft(ctx) };
  },
});
