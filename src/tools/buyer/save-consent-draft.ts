/**
 * save_consent_draft: keeps the consent view's setup as a draft for one day (the buyer closed the view, or moved on a
 * step).
 */
import { z } from 'zod';
import { saveDraft } from '../../domain/buyers/consent-drafts.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { DraftIn, DraftOut } from './consent-draft-schemas.ts';

export const saveConsentDraftTool = defineTool({
  name: 'save_consent_draft',
  title: 'Save the consent-view draft',
  area: 'buyer',
  description:
    'Saves (replaces) the buyer’s unfinished consent-view setup for the session’s shop: the step to resume at, the ' +
    'chosen agent and saved card (the buyer’s own, else 404) and the limits typed so far. Kept one day from this ' +
    'save, one per buyer and shop; granting the permission ends it. Any buyer session for a shop, bounded too.',
  input: z.strictObject(DraftIn),
  output: z.object({ draft: DraftOut }),
  errors: ['session_shop_required', 'not_found', 'instrument_not_found'],
  auth: { principals: ['buyer'] },
  http: { method: 'PUT', path: '/v1/buyer/consent-draft' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    return { draft: await saveDraft(ctx, input) };
  },
});
