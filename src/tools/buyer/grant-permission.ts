/**
 * grant_permission: the buyer gives an agent spending authority in the session's shop (emailed code, or attested
 * consent).
 */
import { z } from 'zod';
import { grantPermission, permissionOut } from '../../domain/buyers/permissions.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { CODE_PROOF_ERRORS, optionalCodeProof, permissionLimits, PermissionOut } from './schemas.ts';

export const grantPermissionTool = defineTool({
  name: 'grant_permission',
  title: 'Grant an agent a permission',
  area: 'buyer',
  description:
    'Lets an agent buy in this session’s shop: up to `perPurchaseCapMinor` per purchase and `allowanceMinor` per ' +
    '`windowHours`, until `expiresAt`, on the saved card `instrumentId` (of this shop and connection). Replaces ' +
    'its live permission here. Needs a full session and the e-mailed code; an attested session grants without one ' +
    'within the organization’s ceilings.',
  input: z.strictObject({
    agentId: z.string().min(1).max(100).describe('The agent (agt_…) to grant the permission to.'),
    instrumentId: z.string().min(1).max(100).describe('The saved card (ins_…) the agent’s purchases are charged to.'),
    ...permissionLimits,
    ...optionalCodeProof,
  }),
  output: PermissionOut,
  errors: [
    'limit_reached',
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
