/** set_buyer_language: remembers the buyer's own language choice (the buyer pages' language menu). */
import { z } from 'zod';
import { setBuyerLanguage } from '../../domain/buyers/sessions.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { Lang } from './schemas.ts';

export const setBuyerLanguageTool = defineTool({
  name: 'set_buyer_language',
  title: 'Remember the buyer’s language',
  area: 'buyer',
  description:
    'Saves the language the buyer chose (en, de, es, fr, hu or pt-BR) on the buyer, so later sessions, sign-in ' +
    'links and emailed codes use it when no other language was given. A session a merchant minted with `lang` keeps ' +
    'that language (`sessionLang` in the answer); a full session follows the new choice at once. Open to bounded ' +
    'sessions too: it changes no spending authority.',
  input: z.strictObject({ lang: Lang }),
  output: z.object({
    buyerId: z.string(),
    lang: Lang,
    sessionLang: z.string().nullable().describe('The language of this session now (get_buyer_session’s `lang`).'),
  }),
  errors: [],
  auth: { principals: ['buyer'] },
  http: { method: 'PUT', path: '/v1/buyer/language' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    return setBuyerLanguage(ctx, input.lang);
  },
});
