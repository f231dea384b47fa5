/** get_attested_consent: the console's attested-consent summary (spec §2.3, §4.4). */
import { z } from 'zod';
import { attestedConsentSummary } from '../../domain/buyers/attestation.ts';
import { defineTool } from '../../orchestrator/tool.ts';

export const getAttestedConsent = defineTool({
  name: 'get_attested_consent',
  title: 'Attested-consent summary',
  area: 'console',
  description:
    'The signed-in organization’s attested consent: whether it is on, the per-buyer ceiling and its rolling window, ' +
    'the attest keys, permission counts, buyers near the ceiling (80% or more spent in the window) and the 20 most ' +
    'recent attested permissions.',
  input: z.strictObject({}),
  output: z.object({
    organizationId: z.string(),
    enabled: z.boolean(),
    perBuyerCeilingMinor: z.number().int().nullable(),
    windowHours: z.number().int().nullable(),
    attestKeys: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        tokenPrefix: z.string(),
        state: z.enum(['active', 'attestation_disabled']),
        lastUsedAt: z.string().nullable(),
      }),
    ),
    permissionCounts: z.object({
      active: z.number().int(),
      expired: z.number().int(),
      revoked: z.number().int(),
      total: z.number().int(),
    }),
    buyersNearCeiling: z.array(
      z.object({
        buyerId: z.string(),
        email: z.string(),
        spentMinor: z.number().int(),
        ceilingMinor: z.number().int(),
        remainingMinor: z.number().int(),
      }),
    ),
    recentPermissions: z.array(
      z.object({
        id: z.string(),
        label: z.string().nullable(),
        buyerId: z.string(),
        agentId: z.string(),
        merchantId: z.string(),
        allowanceMinor: z.number().int(),
        perPurchaseCapMinor: z.number().int(),
        currency: z.string(),
        status: z.enum(['active', 'expired', 'revoked']),
        createdAt: z.string(),
        revokedAt: z.string().nullable(),
        revokedReason: z.string().nullable(),
      }),
    ),
  }),
  errors: [],
  auth: { principals: ['console_user'], roles: ['owner', 'integrator'] },
  http: { method: 'GET', path: '/v1/console/attested-consent' },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(_input, ctx) {
    return attestedConsentSummary(ctx);
  },
});
