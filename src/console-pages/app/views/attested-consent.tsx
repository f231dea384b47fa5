/**
 * Attested consent (spec §2.3): whether it is on, the per-buyer ceiling and window, the attest keys, permission
 * counts, buyers near the ceiling and recent attested permissions; an owner withdraws an active one with a reason,
 * after confirming.
 */
import { useState } from 'preact/hooks';
import type { GetAttestedConsentOutput } from '@tessera/sdk';
import { ConfirmDialog } from '../kit/confirm-dialog.tsx';
import { DataTable, type Column } from '../kit/data-table.tsx';
import { EmptyState } from '../kit/empty-state.tsx';
import { SelectField, TextField } from '../kit/field.tsx';
import { count, money, when } from '../kit/format.ts';
import { Loaded, useLoad } from '../kit/load.tsx';
import { PageHeader } from '../kit/page-header.tsx';
import { t } from '../i18n.ts';
import { useSession } from '../session.tsx';
import type { ViewDef } from '../view.ts';

type Summary = GetAttestedConsentOutput;
type AttestKey = Summary['attestKeys'][number];
type NearCeiling = Summary['buyersNearCeiling'][number];
type Permission = Summary['recentPermissions'][number];

function AttestedConsent() {
  const { client, isOwner, shops } = useSession();
  const summary = useLoad(() => client.call('get_attested_consent'), [client]);
  const [note, setNote] = useState('');
  // The ceiling is kept in the organization's shops' currency.
  const currency = shops[0]?.currency ?? 'EUR';
  const keyColumns: Column<AttestKey>[] = [
    { key: 'name', label: t('views.consent.keyName'), render: (k) => k.name, sortBy: (k) => k.name },
    { key: 'prefix', label: t('views.consent.key'), render: (k) => <code>{k.tokenPrefix}…</code> },
    { key: 'state', label: t('views.consent.state'), render: (k) => t(`views.apiKeys.states.${k.state}`) },
    {
      key: 'used',
      label: t('views.consent.lastUsed'),
      render: (k) => (k.lastUsedAt ? when(k.lastUsedAt) : t('views.apiKeys.neverUsed')),
    },
  ];
  const nearColumns: Column<NearCeiling>[] = [
    { key: 'email', label: t('views.consent.buyer'), render: (b) => b.email, sortBy: (b) => b.email },
    {
      key: 'spent',
      label: t('views.consent.spent'),
      render: (b) => money(b.spentMinor, currency),
      sortBy: (b) => b.spentMinor,
      numeric: true,
    },
    {
      key: 'ceiling',
      label: t('views.consent.ceiling'),
      render: (b) => money(b.ceilingMinor, currency),
      numeric: true,
    },
    {
      key: 'left',
      label: t('views.consent.left'),
      render: (b) => money(b.remainingMinor, currency),
      sortBy: (b) => b.remainingMinor,
      numeric: true,
    },
  ];
  const permissionColumns: Column<Permission>[] = [
    {
      key: 'permission',
      label: t('views.consent.permission'),
      render: (p) => `${p.label ?? t('views.consent.unnamed')} (${p.id})`,
    },
    { key: 'agent', label: t('views.consent.agent'), render: (p) => <code>{p.agentId}</code> },
    {
      key: 'allowance',
      label: t('views.consent.allowance'),
      render: (p) => money(p.allowanceMinor, p.currency),
      sortBy: (p) => p.allowanceMinor,
      numeric: true,
    },
    {
      key: 'cap',
      label: t('views.consent.perPurchase'),
      render: (p) => money(p.perPurchaseCapMinor, p.currency),
      numeric: true,
    },
    { key: 'status', label: t('views.consent.status'), render: (p) => t(`views.consent.statuses.${p.status}`) },
    {
      key: 'created',
      label: t('views.consent.createdAt'),
      render: (p) => when(p.createdAt),
      sortBy: (p) => p.createdAt,
    },
    { key: 'reason', label: t('views.consent.reason'), render: (p) => p.revokedReason ?? '' },
  ];
  return (
    <>
      <PageHeader title={t('views.consent.title')} intro={t('views.consent.intro')} />
      <p role="status" aria-live="polite" class="feedback">
        {note}
      </p>
      <Loaded of={summary}>
        {(c) => (
          <>
            <p id="consent-state">
              {c.enabled
                ? t('views.consent.on', {
                    ceiling: money(c.perBuyerCeilingMinor ?? 0, currency),
                    hours: c.windowHours ?? 0,
                  })
                : t('views.consent.off')}
            </p>
            <section aria-labelledby="consent-keys">
              <h2 id="consent-keys">{t('views.consent.keys')}</h2>
              <DataTable
                caption={t('views.consent.keysCaption')}
                columns={keyColumns}
                rows={c.attestKeys}
                rowKey={(k) => k.id}
                empty={<EmptyState>{t('views.consent.noKeys')}</EmptyState>}
              />
            </section>
            <section aria-labelledby="consent-permissions">
              <h2 id="consent-permissions">{t('views.consent.permissions')}</h2>
              <dl class="pairs" id="permission-counts">
                {(['active', 'expired', 'revoked', 'total'] as const).map((k) => (
                  <div key={k}>
                    <dt>{t(`views.consent.counts.${k}`)}</dt>
                    <dd data-count={k}>{count(c.permissionCounts[k])}</dd>
                  </div>
                ))}
              </dl>
              <DataTable
                caption={t('views.consent.nearCaption')}
                columns={nearColumns}
                rows={c.buyersNearCeiling}
                rowKey={(b) => b.buyerId}
                empty={<EmptyState>{t('views.consent.noneNear')}</EmptyState>}
              />
              <DataTable
                caption={t('views.consent.recentCaption')}
                columns={permissionColumns}
                rows={c.recentPermissions}
                rowKey={(p) => p.id}
                empty={<EmptyState>{t('views.consent.noPermissions')}</EmptyState>}
              />
            </section>
            {isOwner ? (
              <Withdraw
                active={c.recentPermissions.filter((p) => p.status === 'active')}
                onWithdrawn={async (message) => {
                  setNote(message);
                  await summary.reload();
                }}
              />
            ) : null}
          </>
        )}
      </Loaded>
    </>
  );
}

function Withdraw(props: { active: readonly Permission[]; onWithdrawn: (message: string) => Promise<void> }) {
  const { client } = useSession();
  const [permission, setPermission] = useState(props.active[0]?.id ?? '');
  const [reason, setReason] = useState('');
  const [errors, setErrors] = useState<{ permission?: string; reason?: string }>({});
  const [confirming, setConfirming] = useState(false);
  const chosen = props.active.find((p) => p.id === permission);
  const submit = (e: Event) => {
    e.preventDefault();
    const problems = {
      ...(chosen ? {} : { permission: t('views.consent.noActive') }),
      ...(reason.trim() ? {} : { reason: t('views.consent.reasonRequired') }),
    };
    setErrors(problems);
    if (problems.permission || problems.reason) {
      document.getElementById(problems.permission ? 'withdraw-permission' : 'withdraw-reason')?.focus();
      return;
    }
    setConfirming(true);
  };
  return (
    <section aria-labelledby="consent-withdraw">
      <h2 id="consent-withdraw">{t('views.consent.withdrawTitle')}</h2>
      <form noValidate onSubmit={submit}>
        <SelectField
          id="withdraw-permission"
          label={t('views.consent.permission')}
          value={permission}
          onValue={setPermission}
          error={errors.permission}
          options={
            props.active.length
              ? props.active.map((p) => [p.id, `${p.label ?? t('views.consent.unnamed')} (${p.id})`] as const)
              : [['', t('views.consent.noActive')] as const]
          }
        />
        <TextField
          id="withdraw-reason"
          label={t('views.consent.reason')}
          hint={t('views.consent.reasonHint')}
          value={reason}
          onValue={setReason}
          error={errors.reason}
          maxLength={500}
          autoComplete="off"
        />
        <button type="submit" class="danger">
          {t('views.consent.withdraw')}
        </button>
      </form>
      <ConfirmDialog
        open={confirming}
        id="withdraw-confirm"
        title={t('views.consent.withdrawConfirmTitle', { permission: chosen ? `${chosen.label ?? chosen.id}` : '' })}
        confirmLabel={t('views.consent.withdraw')}
        danger
        onConfirm={async () => {
          await client.call('withdraw_attested_permission', { id: permission, reason: reason.trim() });
          return t('views.consent.withdrawn', { id: permission });
        }}
        onClose={(done, message) => {
          setConfirming(false);
          if (done) {
            setReason('');
            void props.onWithdrawn(message);
          }
        }}
      >
        <p>{t('views.consent.withdrawWhat')}</p>
      </ConfirmDialog>
    </section>
  );
}

export const attestedConsentView: ViewDef = {
  id: 'attested-consent',
  path: '/console/attested-consent',
  title: 'views.consent.title',
  component: AttestedConsent,
  nav: 'organization',
};
