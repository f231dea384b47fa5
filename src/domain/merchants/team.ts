/**
 * The console team (spec §5.4): an owner invites people by e-mail with a role (`owner` or `integrator`), sees the
 * team, changes roles and removes members. An invitation is a single-use link (7 days; only its hash is stored)
 * that, accepted, creates the membership and signs the person in. An organization always keeps an owner: the last
 * one can be neither demoted nor removed. Who may call what is declared on the tools (owner only).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { hashToken } from '../../kernel/tokens.ts';
import type { Role } from '../../kernel/principal.ts';
import { iso } from '../../kernel/wire.ts';
import { invitationMail } from '../../mail/console-templates.ts';
import { sql } from '../../storage/database.ts';
import { newId, randomToken } from '../../storage/ids.ts';
import { normalizeEmail } from '../buyers/sessions.ts';
import { revokeKeysMintedBy } from './api-keys.ts';
import { openConsoleSession, type ConsoleSession } from './console-sign-in.ts';
import { refuseJoinPastCap, refuseTeamPastCap } from './team-caps.ts';
import { MAX_OPEN_INVITATIONS } from '../limits.ts';

export const INVITATION_TTL_DAYS = 7;

/** The page the invitation link opens; the token rides in the fragment. */
export function invitationUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/console/accept#token=${token}`;
}

function organizationOfCaller(ctx: Pick<ToolContext, 'principal'>): { organizationId: string; userId: string } {
  if (ctx.principal.kind !== 'console_user') throw new ToolError('forbidden');
  return { organizationId: ctx.principal.organizationId, userId: ctx.principal.userId };
}

interface InvitationRow {
  id: string;
  email: string;
  role: Role;
  invited_by: string;
  expires_at: Date;
  accepted_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}

export function invitationOut(r: InvitationRow, now: Date) {
  const state: 'accepted' | 'revoked' | 'expired' | 'pending' = r.accepted_at
    ? 'accepted'
    : r.revoked_at
      ? 'revoked'
      : new Date(r.expires_at) <= now
        ? 'expired'
        : 'pending';
  return {
    id: r.id,
    email: r.email,
    role: r.role,
    state,
    invitedBy: r.invited_by,
    expiresAt: iso(r.expires_at),
    createdAt: iso(r.created_at),
  };
}

/**
 * Invites `email` with `role`: refused when the person is already a member; a pending invitation to them is
 * replaced. The invitation commits before the e-mail is sent (no transaction is held open across the mail server).
 */
export async function inviteMember(ctx: ToolContext, input: { email: string; role: Role }) {
  const { organizationId, userId } = organizationOfCaller(ctx);
  const { clock, services } = ctx;
  const now = clock.now();
  const email = normalizeEmail(input.email);
  const token = randomToken(32);
  const { row, orgName } = await services.db.transaction(async (em) => {
    const [member] = await sql(
      em,
      'select 1 from memberships m join users u on u.id = m.user_id where m.organization_id = ? and u.email = ?',
      [organizationId, email],
    );
    if (member) throw new ToolError('already_member', `${email} is already a member of this organization.`, { email });
    await sql(
      em,
      'update team_invitations set revoked_at = ? where organization_id = ? and email = ? and accepted_at is null and revoked_at is null',
      [now, organizationId, email],
    );
    await refuseTeamPastCap(em, organizationId, now);
    const [inserted] = await sql<InvitationRow>(
      em,
      `insert into team_invitations (id, organization_id, email, role, token_hash, invited_by, expires_at, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?) returning *`,
      [
        newId('invitation', now),
        organizationId,
        email,
        input.role,
        hashToken(token),
        userId,
        new Date(now.getTime() + INVITATION_TTL_DAYS * 86_400_000),
        now,
      ],
    );
    const [org] = await sql<{ name: string }>(em, 'select name from organizations where id = ?', [organizationId]);
    return { row: inserted!, orgName: org?.name ?? organizationId };
  });
  await services.mail.send({
    to: email,
    ...invitationMail(invitationUrl(services.publicUrl(), token), orgName, input.role, INVITATION_TTL_DAYS),
  });
  return invitationOut(row, now);
}

/** Withdraws a pending invitation of the caller's organization. */
export async function revokeInvitation(ctx: ToolContext, id: string) {
  const { organizationId } = organizationOfCaller(ctx);
  const now = ctx.clock.now();
  const [row] = await sql<InvitationRow>(
    ctx.em,
    `update team_invitations set revoked_at = ? where id = ? and organization_id = ? and accepted_at is null and revoked_at is null returning *`,
    [now, id, organizationId],
  );
  if (!row) throw new ToolError('not_found', `No pending invitation ${id}.`, { id });
  return invitationOut(row, now);
}

/**
 * Accepts an invitation exactly once, before it expires: the person (created on first sight) joins with the role
 * and is signed in to that organization only (issue #32): the session cannot switch to their other organizations.
 */
export async function acceptInvitation(ctx: ToolContext, token: string): Promise<ConsoleSession> {
  const { em, clock } = ctx;
  const now = clock.now();
  const [inv] = await sql<{ id: string; organization_id: string; email: string; role: Role; invited_by: string }>(
    em,
    `update team_invitations set accepted_at = ? where token_hash = ? and accepted_at is null and revoked_at is null and expires_at > ?
     returning id, organization_id, email, role, invited_by`,
    [now, hashToken(token), now],
  );
  if (!inv) throw new ToolError('invitation_invalid');
  await sql(
    em,
    'insert into users (id, email, name, is_staff, created_at) values (?, ?, null, false, ?) on conflict (email) do nothing',
    [newId('user', now), inv.email, now],
  );
  const [user] = await sql<{ id: string }>(em, 'select id from users where email = ?', [inv.email]);
  await refuseJoinPastCap(em, user!.id, inv.organization_id);
  await sql(
    em,
    `insert into memberships (user_id, organization_id, role, invited_by, created_at) values (?, ?, ?, ?, ?)
     on conflict (user_id, organization_id) do nothing`,
    [user!.id, inv.organization_id, inv.role, inv.invited_by, now],
  );
  await sql(em, 'update team_invitations set accepted_by = ? where id = ?', [user!.id, inv.id]);
  return openConsoleSession(ctx, user!.id, inv.organization_id, { invitation: true });
}

/** The members (owners first, then by joining date) and the invitations of the caller's organization. */
export async function listTeam(ctx: ToolContext) {
  const { organizationId } = organizationOfCaller(ctx);
  const now = ctx.clock.now();
  const members = await sql<{
    user_id: string;
    email: string;
    role: Role;
    invited_by: string | null;
    created_at: Date;
  }>(
    ctx.em,
    `select m.user_id, u.email, m.role, m.invited_by, m.created_at from memberships m join users u on u.id = m.user_id
      where m.organization_id = ? order by (m.role = 'owner') desc, m.created_at, u.email`,
    [organizationId],
  );
  const invitations = await sql<InvitationRow>(
    ctx.em,
    'select * from team_invitations where organization_id = ? and accepted_at is null and revoked_at is null order by created_at desc limit ?',
    [organizationId, MAX_OPEN_INVITATIONS],
  );
  return {
    members: members.map((m) => ({
      userId: m.user_id,
      email: m.email,
      role: m.role,
      invitedBy: m.invited_by,
      joinedAt: iso(m.created_at),
    })),
    invitations: invitations.map((r) => invitationOut(r, now)),
  };
}

async function lockMembers(em: EntityManager, organizationId: string): Promise<{ user_id: string; role: Role }[]> {
  return sql<{ user_id: string; role: Role }>(
    em,
    'select user_id, role from memberships where organization_id = ? order by user_id for update',
    [organizationId],
  );
}

/** Changes a member's role; the last owner cannot be demoted. */
export async function changeMemberRole(ctx: ToolContext, memberId: string, role: Role) {
  const { organizationId } = organizationOfCaller(ctx);
  const members = await lockMembers(ctx.em, organizationId);
  const target = members.find((m) => m.user_id === memberId);
  if (!target) throw new ToolError('not_found', `No member ${memberId}.`, { userId: memberId });
  if (target.role === 'owner' && role !== 'owner' && members.filter((m) => m.role === 'owner').length === 1) {
    throw new ToolError('last_owner', undefined, { userId: memberId });
  }
  await sql(ctx.em, 'update memberships set role = ? where organization_id = ? and user_id = ?', [
    role,
    organizationId,
    memberId,
  ]);
  return (await listTeam(ctx)).members.find((m) => m.userId === memberId)!;
}

/**
 * Removes a member: their console sessions stop working at once and the API keys they minted in the organization are
 * revoked in the same transaction (authentication refuses them anyway: `keyAuthority`). The last owner stays.
 */
export async function removeMember(
  ctx: ToolContext,
  memberId: string,
): Promise<{ userId: string; removed: true; removedAt: string; revokedApiKeyIds: string[] }> {
  const { organizationId } = organizationOfCaller(ctx);
  const members = await lockMembers(ctx.em, organizationId);
  const target = members.find((m) => m.user_id === memberId);
  if (!target) throw new ToolError('not_found', `No member ${memberId}.`, { userId: memberId });
  if (target.role === 'owner' && members.filter((m) => m.role === 'owner').length === 1)
    throw new ToolError('last_owner', undefined, { userId: memberId });
  const now = ctx.clock.now();
  await sql(ctx.em, 'delete from memberships where organization_id = ? and user_id = ?', [organizationId, memberId]);
  const revokedApiKeyIds = await revokeKeysMintedBy(ctx.em, organizationId, memberId, now);
  return { userId: memberId, removed: true, removedAt: iso(now), revokedApiKeyIds };
}
