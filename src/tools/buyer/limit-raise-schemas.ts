/** Wire schemas of limit-raise requests: what the buyer page shows and what the agent is told. */
import { z } from 'zod';

const Status = z
  .enum(['pending', 'approved', 'declined', 'expired'])
  .describe('pending until the buyer answers; expired after 15 minutes unanswered.');

export const LimitRaiseOut = z.object({
  id: z.string().describe('The request (lrr_…).'),
  status: Status,
  agentId: z.string(),
  agentName: z.string().nullable().describe('The agent’s name; null once it was deleted.'),
  permissionId: z.string(),
  merchantId: z.string().describe('The shop of the permission.'),
  shopName: z.string().nullable(),
  reason: z.enum(['over_purchase_cap', 'allowance_exhausted']).describe('The refusal the raise would cure.'),
  amountMinor: z.number().int().describe('The purchase amount the agent needs to make.'),
  currency: z.string(),
  perPurchaseCapMinor: z.number().int().describe('The per-purchase cap when the agent asked.'),
  allowanceMinor: z.number().int().describe('The allowance when the agent asked.'),
  proposedPerPurchaseCapMinor: z.number().int().describe('The per-purchase cap an approval sets.'),
  proposedAllowanceMinor: z.number().int().describe('The allowance an approval sets.'),
  createdAt: z.string(),
  expiresAt: z.string(),
  decidedAt: z.string().nullable(),
});

export const LimitRaiseForAgent = z.object({
  id: z.string().describe('The request (lrr_…), also the MCP elicitationId.'),
  status: Status,
  url: z.string().describe('The buyer page where the buyer approves or declines (signed-in buyer only).'),
  expiresAt: z.string(),
  permissionId: z.string(),
  amountMinor: z.number().int(),
  currency: z.string(),
  proposedPerPurchaseCapMinor: z.number().int(),
  proposedAllowanceMinor: z.number().int(),
});

export const RequestId = z.string().min(1).max(100).describe('The limit-raise request (lrr_…).');
