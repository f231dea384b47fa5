/** grant_permission: the buyer gives an agent spending authority in the session's shop (emailed code, or attested consent). */
import { z } from 'zod';
import { grantPermission, permissionOut } from '../../domain/buyers/permissions.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { CODE_PROOF_ERRORS, optionalCodeProof, permissionLimits, PermissionOut } from './schemas.ts';

export const grantPermissionTool = defineTool({
  name: 'grant_permission',
  title: 'Grant an agent a permission',
  area: 'buyer',
  description:
    'Lets an agent buy in the shop this session is for (the shop is taken from the session and cannot be chosen): up ' +
    'to `perPurchaseCapMinor` per purchase and `allowanceMinor` per rolling `windowHours`, until `expiresAt`, charged ' +
    'to the saved card `instrumentId` (saved for this shop and payment connection, else 409 ' +
    'instrument_provider_mismatch). Replaces the agent’s live permission in this shop. Needs a full session and the ' +
    'emailed code (purpose grant_permission); a session minted with attested consent grants without a code within the ' +
    'organization’s ceilings, labelled "Set up by <shop>". Other bounded sessions are refused (403).',
  input: z.strictObject({
    agentId: z.string().min(1).max(100),
    instrumentId: z.string().min(1).max(100).describe('The saved card (ins_…) the agent’s purchases are charged to.'),
    ...permissionLimits,
    ...optionalCodeProof,
  }),
  output: PermissionOut,
  errors: [
    'not_found',
    'instrument_not_found',
    'instrument_provider_mismatch',
    'session_shop_required',
    ...CODE_PROOF_ERRORS,
    'merchant_consent_not_enabled',
    'attestation_ceiling_exceeded',
  ],
  auth: { principals: ['buyer'], fullBuyer: true, attestedBuyer: true },
  http: { method: 'POST', path: '/v1/buyer/permissions', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  idempotency: 'optional',
  transactional: false,
  async handler(input, ctx) {
    const permission = await grantPermission(ctx, input);
    return permissionOut(ctx.em, permission, ctx.clock.now());
  },
});
