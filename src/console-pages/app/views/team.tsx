/**
 * Team (owner only): members and their roles, pending invitations; invite, withdraw an invitation, change a role,
 * remove a member. Removing, demoting and withdrawing are confirmed; the last owner is offered neither demotion nor
 * removal (the server refuses both anyway: `last_owner`).
 */
import { useState } from 'preact/hooks';
import type { ListTeamOutput } from '@tessera/sdk';
import { fieldOf } from '../api.ts';
import { ConfirmDialog } from '../kit/confirm-dialog.tsx';
import { DataTable, type Column } from '../kit/data-table.tsx';
import { EmptyState } from '../kit/empty-state.tsx';
import { Feedback, useAction } from '../kit/feedback.tsx';
import { SelectField, TextField } from '../kit/field.tsx';
import { when } from '../kit/format.ts';
import { Loaded, useLoad } from '../kit/load.tsx';
import { PageHeader } from '../kit/page-header.tsx';
import { t } from '../i18n.ts';
import { useSession } from '../session.tsx';
import type { ViewDef } from '../view.ts';

type Team = ListTeamOutput;
type Member = Team['members'][number];
type Invitation = Team['invitations'][number];
type Role = Member['role'];

/** What may be done to a member: the last owner can be neither demoted nor removed. */
export function memberActions(m: Member, members: readonly Member[]): { changeRole: boolean; remove: boolean } {
  const lastOwner = m.role === 'owner' && members.filter((x) => x.role === 'owner').length === 1;
  return { changeRole: !lastOwner, remove: !lastOwner };
}

/** The confirmation a pending action needs. */
type Pending =
  | { kind: 'remove'; member: Member }
  | { kind: 'role'; member: Member; role: Role }
  | { kind: 'withdraw'; invitation: Invitation };

function TeamView() {
  const { client, me, signedIn, signOut } = useSession();
  const team = useLoad(() => client.call('list_team'), [client]);
  const [pending, setPending] = useState<Pending | null>(null);
  const [note, setNote] = useState('');
  const roleName = (r: Role) => t(`views.team.roles.${r}`);
  const members: Column<Member>[] = [
    {
      key: 'email',
      label: t('views.team.email'),
      render: (m) => (m.userId === me?.userId ? t('views.team.you', { email: m.email }) : m.email),
      sortBy: (m) => m.email,
    },
    { key: 'role', label: t('views.team.role'), render: (m) => roleName(m.role), sortBy: (m) => m.role },
    { key: 'joined', label: t('views.team.joined'), render: (m) => when(m.joinedAt), sortBy: (m) => m.joinedAt },
    {
      key: 'actions',
      label: t('views.team.actions'),
      hiddenLabel: true,
      render: (m) => {
        const can = memberActions(m, team.data?.members ?? []);
        const other: Role = m.role === 'owner' ? 'integrator' : 'owner';
        if (!can.changeRole && !can.remove) return <span class="hint">{t('views.team.lastOwner')}</span>;
        return (
          <div class="row-actions">
            {can.changeRole ? (
              <button
                type="button"
                class="secondary"
                onClick={() => setPending({ kind: 'role', member: m, role: other })}
              >
                {t(`views.team.make.${other}`, { email: m.email })}
              </button>
            ) : null}
            {can.remove ? (
              <button type="button" class="danger" onClick={() => setPending({ kind: 'remove', member: m })}>
                {t('views.team.remove', { email: m.email })}
              </button>
            ) : null}
          </div>
        );
      },
    },
  ];
  const invitations: Column<Invitation>[] = [
    { key: 'email', label: t('views.team.email'), render: (i) => i.email, sortBy: (i) => i.email },
    { key: 'role', label: t('views.team.role'), render: (i) => roleName(i.role) },
    { key: 'expires', label: t('views.team.expires'), render: (i) => when(i.expiresAt), sortBy: (i) => i.expiresAt },
    {
      key: 'actions',
      label: t('views.team.actions'),
      hiddenLabel: true,
      render: (i) => (
        <button type="button" class="danger" onClick={() => setPending({ kind: 'withdraw', invitation: i })}>
          {t('views.team.withdraw', { email: i.email })}
        </button>
      ),
    },
  ];
  const dialog = pending ? confirmation(pending, roleName) : null;
  return (
    <>
      <PageHeader title={t('views.team.title')} intro={t('views.team.intro')} />
      <p role="status" aria-live="polite" class="feedback">
        {note}
      </p>
      <Loaded of={team}>
        {(d) => (
          <>
            <section aria-labelledby="team-members">
              <h2 id="team-members">{t('views.team.members')}</h2>
              <DataTable
                caption={t('views.team.membersCaption')}
                columns={members}
                rows={d.members}
                rowKey={(m) => m.userId}
                empty={<EmptyState>{t('views.team.noMembers')}</EmptyState>}
              />
            </section>
            <section aria-labelledby="team-invitations">
              <h2 id="team-invitations">{t('views.team.invitations')}</h2>
              <DataTable
                caption={t('views.team.invitationsCaption')}
                columns={invitations}
                rows={d.invitations.filter((i) => i.state === 'pending')}
                rowKey={(i) => i.id}
                empty={<EmptyState>{t('views.team.noInvitations')}</EmptyState>}
              />
            </section>
          </>
        )}
      </Loaded>
      <Invite onInvited={team.reload} />
      <ConfirmDialog
        open={dialog !== null}
        id="team-confirm"
        title={dialog?.title ?? ''}
        confirmLabel={dialog?.confirm ?? ''}
        danger={pending?.kind !== 'role' || pending.role === 'integrator'}
        onConfirm={async () => {
          const p = pending!;
          if (p.kind === 'remove') await client.call('remove_team_member', { userId: p.member.userId });
          else if (p.kind === 'role')
            await client.call('change_team_member_role', { userId: p.member.userId, role: p.role });
          else await client.call('revoke_team_invitation', { id: p.invitation.id });
          return dialog!.done;
        }}
        onClose={(done, message) => {
          const p = pending;
          setPending(null);
          if (!done || !p) return;
          setNote(message);
          const self = p.kind !== 'withdraw' && p.member.userId === me?.userId;
          // Acting on oneself changes the session: a new role applies at once; a removal ends it.
          if (self && p.kind === 'remove') void signOut();
          else if (self)
            void client.call('get_console_session').then(
              (next) => signedIn({ ...me!, ...next }),
              () => undefined,
            );
          else void team.reload();
        }}
      >
        <p>{dialog?.what}</p>
      </ConfirmDialog>
    </>
  );
}

function confirmation(p: Pending, roleName: (r: Role) => string) {
  if (p.kind === 'remove')
    return {
      title: t('views.team.removeTitle', { email: p.member.email }),
      what: t('views.team.removeWhat'),
      confirm: t('views.team.removeConfirm'),
      done: t('views.team.removed', { email: p.member.email }),
    };
  if (p.kind === 'role')
    return {
      title: t('views.team.roleTitle', { email: p.member.email, role: roleName(p.role) }),
      what: t(`views.team.roleWhat.${p.role}`),
      confirm: t('views.team.roleConfirm', { role: roleName(p.role) }),
      done: t('views.team.roleChanged', { email: p.member.email, role: roleName(p.role) }),
    };
  return {
    title: t('views.team.withdrawTitle', { email: p.invitation.email }),
    what: t('views.team.withdrawWhat'),
    confirm: t('views.team.withdrawConfirm'),
    done: t('views.team.withdrawn', { email: p.invitation.email }),
  };
}

function Invite(props: { onInvited: () => Promise<void> }) {
  const { client } = useSession();
  const action = useAction();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('integrator');
  const [error, setError] = useState('');
  const submit = (e: Event) => {
    e.preventDefault();
    if (!/^[^\s@]+@[^\s@]+$/.test(email.trim())) {
      setError(t('views.team.emailInvalid'));
      document.getElementById('invite-email')?.focus();
      return;
    }
    setError('');
    void action.run(async () => {
      try {
        const i = await client.call('invite_team_member', { email: email.trim(), role });
        setEmail('');
        await props.onInvited();
        return t('views.team.invited', { email: i.email });
      } catch (err) {
        if (fieldOf(err, { email: 'invite-email', 'code:already_member': 'invite-email' }))
          setError(t('views.team.inviteRefused'));
        throw err;
      }
    });
  };
  return (
    <section aria-labelledby="team-invite">
      <h2 id="team-invite">{t('views.team.inviteTitle')}</h2>
      <form noValidate onSubmit={submit}>
        <TextField
          id="invite-email"
          type="email"
          label={t('views.team.email')}
          value={email}
          onValue={setEmail}
          error={error}
          autoComplete="off"
        />
        <SelectField
          id="invite-role"
          label={t('views.team.role')}
          value={role}
          onValue={(v) => setRole(v as Role)}
          options={[
            ['integrator', t('views.team.roles.integrator')],
            ['owner', t('views.team.roles.owner')],
          ]}
        />
        <button type="submit" class="primary" aria-describedby="invite-feedback">
          {t('views.team.invite')}
        </button>
        <Feedback of={action} id="invite-feedback" />
      </form>
    </section>
  );
}

export const teamView: ViewDef = {
  id: 'team',
  path: '/console/team',
  title: 'views.team.title',
  component: TeamView,
  nav: 'organization',
  ownerOnly: true,
};
