/** get_consent_draft: the consent view's unfinished setup for the session's shop, to resume at the same step. */
import { z } from 'zod';
import { readDraft } from '../../domain/buyers/consent-drafts.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { DraftOut } from './consent-draft-schemas.ts';

export const getConsentDraftTool = defineTool({
  name: 'get_consent_draft',
  title: 'Read the consent-view draft',
  area: 'buyer',
  description:
    'The buyer’s unfinished setup in the embedded consent view for the session’s shop: the step to resume at (agent, ' +
    'card or limits), the chosen agent and card and the limits typed so far; `draft` is null when there is none or ' +
    'it is older than one day. Any buyer session for a shop, bounded too (a draft grants nothing).',
  input: z.strictObject({}),
  output: z.object({ draft: DraftOut.nullable() }),
  errors: ['session_shop_required'],
  auth: { principals: ['buyer'] },
  http: { method: 'GET', path: '/v1/buyer/consent-draft' },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(_input, ctx) {
    return { draft: await readDraft(ctx) };
  },
});
