/**
 * Shops: the organization's shops; an owner creates one and deletes one after confirming (a shop with holds or
 * payments in flight is refused, with the numbers). A shop's description and discoverability are set in its Events
 * view.
 */
import { useState } from 'preact/hooks';
import { fieldOf } from '../api.ts';
import { ConfirmDialog } from '../kit/confirm-dialog.tsx';
import { DataTable, type Column } from '../kit/data-table.tsx';
import { EmptyState } from '../kit/empty-state.tsx';
import { Feedback, useAction } from '../kit/feedback.tsx';
import { CheckboxField, TextField } from '../kit/field.tsx';
import { when } from '../kit/format.ts';
import { PageHeader } from '../kit/page-header.tsx';
import { t } from '../i18n.ts';
import { useSession, type Shop } from '../session.tsx';
import { shopPath, type ViewDef } from '../view.ts';

function Shops() {
  const { client, shops, isOwner, reloadShops } = useSession();
  const [deleting, setDeleting] = useState<Shop | null>(null);
  const [note, setNote] = useState('');
  const columns: Column<Shop>[] = [
    {
      key: 'name',
      label: t('views.shops.name'),
      render: (s) => <a href={shopPath(s.id, 'overview')}>{s.name}</a>,
      sortBy: (s) => s.name,
    },
    { key: 'id', label: t('views.shops.id'), render: (s) => <code>{s.id}</code> },
    { key: 'currency', label: t('views.shops.currency'), render: (s) => s.currency },
    {
      key: 'discoverable',
      label: t('views.shops.discoverable'),
      render: (s) => (s.discoverable ? t('views.shops.yes') : t('views.shops.no')),
    },
    { key: 'created', label: t('views.shops.createdAt'), render: (s) => when(s.createdAt), sortBy: (s) => s.createdAt },
    {
      key: 'actions',
      label: t('views.shops.actions'),
      hiddenLabel: true,
      render: (s) =>
        isOwner ? (
          <button type="button" class="danger" onClick={() => setDeleting(s)}>
            {t('views.shops.delete', { name: s.name })}
          </button>
        ) : null,
    },
  ];
  return (
    <>
      <PageHeader title={t('views.shops.title')} intro={t('views.shops.intro')} />
      <p role="status" aria-live="polite" class="feedback">
        {note}
      </p>
      <DataTable
        caption={t('views.shops.caption')}
        columns={columns}
        rows={shops}
        rowKey={(s) => s.id}
        empty={<EmptyState>{t('views.shops.empty')}</EmptyState>}
      />
      {isOwner ? <CreateShop onCreated={reloadShops} /> : null}
      <ConfirmDialog
        open={deleting !== null}
        id="delete-shop"
        title={t('views.shops.deleteTitle', { name: deleting?.name ?? '' })}
        confirmLabel={t('views.shops.deleteConfirm')}
        danger
        onConfirm={async () => {
          await client.call('delete_shop', { id: deleting!.id });
          return t('views.shops.deleted', { name: deleting!.name });
        }}
        onClose={(done, message) => {
          setDeleting(null);
          if (!done) return;
          setNote(message);
          void reloadShops();
        }}
      >
        <p>{t('views.shops.deleteWhat')}</p>
      </ConfirmDialog>
    </>
  );
}

function CreateShop(props: { onCreated: () => Promise<void> }) {
  const { client } = useSession();
  const action = useAction();
  const [name, setName] = useState('');
  const [currency, setCurrency] = useState('EUR');
  const [description, setDescription] = useState('');
  const [discoverable, setDiscoverable] = useState(false);
  const [errors, setErrors] = useState<{ name?: string; currency?: string }>({});
  const submit = (e: Event) => {
    e.preventDefault();
    const problems = {
      ...(name.trim() ? {} : { name: t('views.shops.nameRequired') }),
      ...(/^[A-Z]{3}$/.test(currency) ? {} : { currency: t('views.shops.currencyInvalid') }),
    };
    setErrors(problems);
    if (problems.name || problems.currency) {
      document.getElementById(problems.name ? 'shop-name' : 'shop-currency')?.focus();
      return;
    }
    void action.run(async () => {
      try {
        const s = await client.call('create_shop', {
          name: name.trim(),
          currency,
          discoverable,
          ...(description.trim() ? { description: description.trim() } : {}),
        });
        setName('');
        setDescription('');
        setDiscoverable(false);
        await props.onCreated();
        return t('views.shops.created', { name: s.name, id: s.id });
      } catch (err) {
        const field = fieldOf(err, { name: 'shop-name', currency: 'shop-currency' });
        if (field) setErrors({ [field === 'shop-name' ? 'name' : 'currency']: t('views.shops.refused') });
        throw err;
      }
    });
  };
  return (
    <section aria-labelledby="shop-create">
      <h2 id="shop-create">{t('views.shops.createTitle')}</h2>
      <form noValidate onSubmit={submit}>
        <TextField
          id="shop-name"
          label={t('views.shops.name')}
          value={name}
          onValue={setName}
          error={errors.name}
          maxLength={200}
          autoComplete="off"
        />
        <TextField
          id="shop-currency"
          label={t('views.shops.currency')}
          hint={t('views.shops.currencyHint')}
          value={currency}
          onValue={(v) => setCurrency(v.toUpperCase())}
          error={errors.currency}
          maxLength={3}
          autoComplete="off"
        />
        <TextField
          id="shop-description"
          label={t('views.shops.description')}
          value={description}
          onValue={setDescription}
          maxLength={2000}
          autoComplete="off"
        />
        <CheckboxField
          id="shop-discoverable"
          label={t('views.shops.discoverableLabel')}
          checked={discoverable}
          onChecked={setDiscoverable}
        />
        <button type="submit" class="primary" aria-describedby="shop-create-feedback">
          {t('views.shops.create')}
        </button>
        <Feedback of={action} id="shop-create-feedback" />
      </form>
    </section>
  );
}

export const shopsView: ViewDef = {
  id: 'shops',
  path: '/console/shops',
  title: 'views.shops.title',
  component: Shops,
  nav: 'organization',
};
