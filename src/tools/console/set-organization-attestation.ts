/**
 * set_organization_attestation: staff enable (or disable) attested consent for an organization and set its ceilings.
 */
import { z } from 'zod';
import { attestationOut, setAttestation } from '../../domain/buyers/attestation.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { Minor } from '../../kernel/wire.ts';

export const AttestationOut = z.object({
  organizationId: z.string(),
  enabled: z.boolean(),
  perBuyerCeilingMinor: z.number().int().nullable(),
  windowHours: z.number().int().nullable(),
});

export const setOrganizationAttestation = defineTool({
  name: 'set_organization_attestation',
  title: 'Set an organization’s attested consent',
  area: 'console',
  description:
    'Service staff only: enables an organization under contract for attested consent, with the per-buyer ceiling ' +
    '(minor units) over a rolling window (hours), or disables it (the ceilings are kept). While enabled, its ' +
    'attest-only keys may mint attested buyer sessions.',
  input: z.strictObject({
    id: z.string().min(1).max(100).describe('The organization (org_…).'),
    enabled: z
      .boolean()
      .describe('true enables attested consent (needs perBuyerCeilingMinor and windowHours); false disables it.'),
    perBuyerCeilingMinor: Minor.optional(),
    windowHours: z
      .number()
      .int()
      .min(1)
      .max(8760)
      .optional()
      .describe('The rolling window of the per-buyer ceiling, in hours (1 to 8760).'),
  }),
  output: AttestationOut,
  errors: ['not_found'],
  auth: { principals: ['staff'] },
  http: { method: 'POST', path: '/v1/staff/organizations/{id}/attestation' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    return attestationOut(await setAttestation(ctx.em, input.id, input));
  },
});
