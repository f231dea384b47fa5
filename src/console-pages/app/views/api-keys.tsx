/**
 * API keys: the organization's keys; create one with scopes (an integrator is never offered the owner-only scopes;
 * `mandates:attest` only where attested consent is available, and alone), its token shown once; revoke with
 * confirmation (an integrator only the keys it made).
 */
import { useState } from 'preact/hooks';
import type { CreateApiKeyInput, ListApiKeysOutput } from '@tessera/sdk';
import { fieldOf } from '../api.ts';
import { ChoiceGroup } from '../kit/choice-group.tsx';
import { ConfirmDialog } from '../kit/confirm-dialog.tsx';
import { DataTable, type Column } from '../kit/data-table.tsx';
import { EmptyState } from '../kit/empty-state.tsx';
import { Feedback, useAction } from '../kit/feedback.tsx';
import { TextField } from '../kit/field.tsx';
import { when } from '../kit/format.ts';
import { Loaded, useLoad } from '../kit/load.tsx';
import { PageHeader } from '../kit/page-header.tsx';
import { SecretOnce } from '../kit/secret-once.tsx';
import { t } from '../i18n.ts';
import { useSession } from '../session.tsx';
import type { ViewDef } from '../view.ts';

type Key = ListApiKeysOutput['apiKeys'][number];
const SCOPES = ['merchant:read', 'merchant:write', 'merchant:admin', 'mandates:attest'] as const;
/** Scopes only an owner may put on a key (the server refuses them to an integrator anyway). */
const OWNER_SCOPES: readonly string[] = ['merchant:admin', 'mandates:attest'];

/** The scopes this person is offered: an integrator never the owner's; attest only where the organization has it. */
export function offeredScopes(isOwner: boolean, attestAvailable: boolean): string[] {
  return SCOPES.filter((s) => (isOwner || !OWNER_SCOPES.includes(s)) && (s !== 'mandates:attest' || attestAvailable));
}

function ApiKeys() {
  const { client, me, isOwner } = useSession();
  const keys = useLoad(() => client.call('list_api_keys'), [client]);
  const [revoking, setRevoking] = useState<Key | null>(null);
  const [listNote, setListNote] = useState('');
  const mayRevoke = (k: Key) => k.state !== 'revoked' && (isOwner || k.createdByUserId === me?.userId);
  const columns: Column<Key>[] = [
    { key: 'name', label: t('views.apiKeys.name'), render: (k) => k.name, sortBy: (k) => k.name },
    { key: 'prefix', label: t('views.apiKeys.prefix'), render: (k) => <code>{k.tokenPrefix}…</code> },
    { key: 'scopes', label: t('views.apiKeys.scopes'), render: (k) => k.scopes.join(', ') },
    { key: 'state', label: t('views.apiKeys.state'), render: (k) => t(`views.apiKeys.states.${k.state}`) },
    {
      key: 'created',
      label: t('views.apiKeys.createdAt'),
      render: (k) => when(k.createdAt),
      sortBy: (k) => k.createdAt,
    },
    {
      key: 'used',
      label: t('views.apiKeys.lastUsed'),
      render: (k) => (k.lastUsedAt ? when(k.lastUsedAt) : t('views.apiKeys.neverUsed')),
      sortBy: (k) => k.lastUsedAt ?? '',
    },
    {
      key: 'actions',
      label: t('views.apiKeys.actions'),
      hiddenLabel: true,
      render: (k) =>
        mayRevoke(k) ? (
          <button type="button" class="danger" onClick={() => setRevoking(k)}>
            {t('views.apiKeys.revoke', { name: k.name })}
          </button>
        ) : null,
    },
  ];
  return (
    <>
      <PageHeader title={t('views.apiKeys.title')} intro={t('views.apiKeys.intro')} />
      <section aria-labelledby="keys-list">
        <h2 id="keys-list">{t('views.apiKeys.listTitle')}</h2>
        <p role="status" aria-live="polite" class="feedback">
          {listNote}
        </p>
        <Loaded of={keys}>
          {(d) => (
            <DataTable
              caption={t('views.apiKeys.caption')}
              columns={columns}
              rows={d.apiKeys}
              rowKey={(k) => k.id}
              empty={<EmptyState>{t('views.apiKeys.empty')}</EmptyState>}
            />
          )}
        </Loaded>
      </section>
      {keys.data ? (
        <CreateKey attestAvailable={keys.data.attestAvailable} isOwner={isOwner} onCreated={keys.reload} />
      ) : null}
      <ConfirmDialog
        open={revoking !== null}
        id="revoke-key"
        title={t('views.apiKeys.revokeTitle', { name: revoking?.name ?? '' })}
        confirmLabel={t('views.apiKeys.revokeConfirm')}
        danger
        onConfirm={async () => {
          await client.call('revoke_api_key', { id: revoking!.id });
          return t('views.apiKeys.revoked', { name: revoking!.name });
        }}
        onClose={(done, message) => {
          setRevoking(null);
          if (done) {
            setListNote(message);
            void keys.reload();
          }
        }}
      >
        <p>{t('views.apiKeys.revokeWhat')}</p>
      </ConfirmDialog>
    </>
  );
}

function CreateKey(props: { attestAvailable: boolean; isOwner: boolean; onCreated: () => Promise<void> }) {
  const { client } = useSession();
  const action = useAction();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>([]);
  const [errors, setErrors] = useState<{ name?: string; scopes?: string }>({});
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const offered = offeredScopes(props.isOwner, props.attestAvailable);
  const submit = (e: Event) => {
    e.preventDefault();
    const problems = {
      ...(name.trim() ? {} : { name: t('views.apiKeys.nameRequired') }),
      ...(scopes.length ? {} : { scopes: t('views.apiKeys.scopesRequired') }),
    };
    setErrors(problems);
    if (problems.name || problems.scopes) {
      document.getElementById(problems.name ? 'key-name' : 'key-scopes-0')?.focus();
      return;
    }
    void action.run(async () => {
      try {
        const out = await client.call('create_api_key', {
          name: name.trim(),
          scopes: scopes as CreateApiKeyInput['scopes'],
        });
        setCreated({ name: out.apiKey.name, token: out.token });
        setName('');
        setScopes([]);
        await props.onCreated();
        return t('views.apiKeys.createdOk', { name: out.apiKey.name });
      } catch (err) {
        const field = fieldOf(err, { name: 'key-name', scopes: 'key-scopes' });
        if (field) setErrors({ [field === 'key-name' ? 'name' : 'scopes']: t('views.apiKeys.refused') });
        throw err;
      }
    });
  };
  return (
    <section aria-labelledby="key-create">
      <h2 id="key-create">{t('views.apiKeys.createTitle')}</h2>
      <form noValidate onSubmit={submit}>
        <TextField
          id="key-name"
          label={t('views.apiKeys.name')}
          value={name}
          onValue={setName}
          error={errors.name}
          maxLength={100}
          autoComplete="off"
        />
        <ChoiceGroup
          id="key-scopes"
          legend={t('views.apiKeys.scopes')}
          hint={offered.includes('mandates:attest') ? t('views.apiKeys.attestAlone') : undefined}
          error={errors.scopes}
          choices={offered.map((s) => ({
            value: s,
            label: (
              <>
                <code>{s}</code>: {t(`views.apiKeys.scope.${s.replace(':', '_')}`)}
              </>
            ),
          }))}
          selected={scopes}
          onSelected={setScopes}
        />
        <button type="submit" class="primary" aria-describedby="key-create-feedback">
          {t('views.apiKeys.create')}
        </button>
        <Feedback of={action} id="key-create-feedback" />
      </form>
      {created ? (
        <SecretOnce id="new-key" title={t('views.apiKeys.tokenOf', { name: created.name })} secret={created.token} />
      ) : null}
    </section>
  );
}

export const apiKeysView: ViewDef = {
  id: 'api-keys',
  path: '/console/api-keys',
  title: 'views.apiKeys.title',
  component: ApiKeys,
  nav: 'organization',
};
