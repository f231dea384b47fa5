/** Wire schema of an API key in the console (never its token after creation). */
import { z } from 'zod';
import { SCOPES } from '../../kernel/principal.ts';

export const ApiKeyOut = z.object({
  id: z.string(),
  name: z.string(),
  tokenPrefix: z.string().describe('The first characters of the token, to tell keys apart.'),
  scopes: z.array(z.enum(SCOPES)),
  state: z
    .enum(['active', 'revoked', 'attestation_disabled'])
    .describe('attestation_disabled: an attest key while attested consent is off.'),
  createdByUserId: z.string().nullable(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable().describe('null: "No usage recorded".'),
  revokedAt: z.string().nullable(),
});
