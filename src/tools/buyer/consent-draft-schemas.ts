/** Wire schemas of the consent view's draft (src/domain/buyers/consent-drafts.ts). */
import { z } from 'zod';
import { DRAFT_STEPS } from '../../domain/buyers/consent-drafts.ts';
import { DateTime, Id, Minor } from '../../kernel/wire.ts';

export const DraftLimits = z
  .strictObject({
    perPurchaseCapMinor: Minor.optional(),
    allowanceMinor: Minor.optional(),
    windowHours: z
      .number()
      .int()
      .min(1)
      .max(8760)
      .optional()
      .describe('The rolling window of the allowance, in hours.'),
    expiresAt: DateTime.optional(),
  })
  .describe('The limits chosen so far (all optional).');

export const DraftOut = z.object({
  merchantId: z.string().describe('The shop of the session the draft belongs to.'),
  step: z.enum(DRAFT_STEPS).describe('Where the consent view resumes: agent, card or limits.'),
  agentId: z.string().nullable(),
  instrumentId: z.string().nullable(),
  limits: z.object({
    perPurchaseCapMinor: z.number().optional(),
    allowanceMinor: z.number().optional(),
    windowHours: z.number().optional(),
    expiresAt: z.string().optional(),
  }),
  updatedAt: z.string(),
  expiresAt: z.string().describe('One day after it was last saved; then the draft is gone.'),
});

export const DraftIn = {
  step: z.enum(DRAFT_STEPS).describe('Where the consent view resumes: agent, card or limits.'),
  agentId: Id('agt').nullable().optional().describe('The agent chosen so far (agt_…), or null.'),
  instrumentId: Id('ins').nullable().optional().describe('The saved card chosen so far (ins_…), or null.'),
  limits: DraftLimits.optional(),
};
