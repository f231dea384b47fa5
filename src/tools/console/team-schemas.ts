/** Wire schemas of console sessions and the team, shared by the console sign-in and team tools. */
import { z } from 'zod';
import { secret } from '../../kernel/secret-fields.ts';
import { ROLES } from '../../kernel/principal.ts';

export const RoleIn = z
  .enum(ROLES)
  .describe('owner: full console access. integrator: API keys (never merchant:admin), embed origins and reads.');

export const ConsoleSessionOut = z.object({
  token: secret(
    z.string().describe('The console bearer token (8 hours). Keep it in memory; send it as Authorization: Bearer.'),
  ),
  tokenType: z.literal('Bearer'),
  expiresAt: z.string(),
  userId: z.string(),
  email: z.string(),
  organizationId: z.string().describe('The organization this session acts for.'),
  role: z.enum(ROLES),
  organizations: z
    .array(z.object({ organizationId: z.string(), organizationName: z.string(), role: z.enum(ROLES) }))
    .describe('Every organization the person belongs to (switch with switch_console_organization).'),
});

export const MemberOut = z.object({
  userId: z.string(),
  email: z.string(),
  role: z.enum(ROLES),
  invitedBy: z.string().nullable(),
  joinedAt: z.string(),
});

export const InvitationOut = z.object({
  id: z.string(),
  email: z.string(),
  role: z.enum(ROLES),
  state: z.enum(['pending', 'accepted', 'revoked', 'expired']),
  invitedBy: z.string(),
  expiresAt: z.string(),
  createdAt: z.string(),
});
