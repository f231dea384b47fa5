/** An organization's and a console user's caps (src/domain/limits.ts), checked when someone is invited or joins. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../storage/database.ts';
import {
  MAX_MEMBERS_PER_ORGANIZATION,
  MAX_OPEN_INVITATIONS,
  MAX_ORGANIZATIONS_PER_USER,
  lockCaps,
  refuseAtLimit,
} from '../limits.ts';

/** Refuses (`limit_reached`) a new invitation when the team is full or already has the most open invitations. */
export async function refuseTeamPastCap(em: EntityManager, organizationId: string, now: Date): Promise<void> {
  await lockCaps(em, organizationId);
  const [row] = await sql<{ members: number; open: number }>(
    em,
    `select (select count(*)::int from memberships where organization_id = ?) as members,
            (select count(*)::int from team_invitations where organization_id = ? and accepted_at is null
                and revoked_at is null and expires_at > ?) as open`,
    [organizationId, organizationId, now],
  );
  refuseAtLimit(row?.members ?? 0, MAX_MEMBERS_PER_ORGANIZATION, 'members_per_organization');
  refuseAtLimit(row?.open ?? 0, MAX_OPEN_INVITATIONS, 'open_invitations_per_organization');
}

/**
 * Refuses (`limit_reached`) `userId` joining `organizationId` when the team is full or the user already belongs to
 * the most organizations; a member already there passes (joining again changes nothing).
 */
export async function refuseJoinPastCap(em: EntityManager, userId: string, organizationId: string): Promise<void> {
  await lockCaps(em, userId, organizationId);
  const [row] = await sql<{ member: boolean; members: number; organizations: number }>(
    em,
    `select exists (select 1 from memberships where user_id = ? and organization_id = ?) as member,
            (select count(*)::int from memberships where organization_id = ?) as members,
            (select count(*)::int from memberships where user_id = ?) as organizations`,
    [userId, organizationId, organizationId, userId],
  );
  if (!row || row.member) return;
  refuseAtLimit(row.members, MAX_MEMBERS_PER_ORGANIZATION, 'members_per_organization');
  refuseAtLimit(row.organizations, MAX_ORGANIZATIONS_PER_USER, 'organizations_per_user');
}
