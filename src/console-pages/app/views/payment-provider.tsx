/**
 * Payment provider: the shop's providers (the sandbox in use; the second provider not configured, or configured and
 * not switched on in the sandbox); an owner stores the second provider's settings.
 */
import { useState } from 'preact/hooks';
import type { ListPaymentProvidersOutput } from '@tessera/sdk';
import { fieldOf } from '../api.ts';
import { DataTable, type Column } from '../kit/data-table.tsx';
import { EmptyState } from '../kit/empty-state.tsx';
import { Feedback, useAction } from '../kit/feedback.tsx';
import { TextField } from '../kit/field.tsx';
import { Loaded, useLoad } from '../kit/load.tsx';
import { PageHeader } from '../kit/page-header.tsx';
import { t } from '../i18n.ts';
import { useSession } from '../session.tsx';
import type { ViewDef, ViewProps } from '../view.ts';

type Provider = ListPaymentProvidersOutput['providers'][number];
const FIELDS = ['publishableKey', 'secretKey', 'webhookSecret', 'accountId'] as const;
type Field = (typeof FIELDS)[number];

function PaymentProvider({ shop }: ViewProps) {
  const { client, isOwner } = useSession();
  const list = useLoad(() => client.call('list_payment_providers', { id: shop!.id }), [client, shop?.id]);
  if (!shop) return null;
  const columns: Column<Provider>[] = [
    { key: 'provider', label: t('views.provider.provider'), render: (p) => p.provider },
    { key: 'status', label: t('views.provider.status'), render: (p) => t(`views.provider.statuses.${p.status}`) },
    {
      key: 'linked',
      label: t('views.provider.linked'),
      render: (p) => (p.linked ? t('views.provider.yes') : t('views.provider.no')),
    },
    { key: 'mode', label: t('views.provider.mode'), render: (p) => p.mode ?? '' },
    { key: 'publishable', label: t('views.provider.publishableKey'), render: (p) => p.publishableKey ?? '' },
    { key: 'secret', label: t('views.provider.secretKey'), render: (p) => p.secretKey ?? '' },
  ];
  return (
    <>
      <PageHeader title={t('views.provider.title')} intro={t('views.provider.intro', { shop: shop.name })} />
      <Loaded of={list}>
        {(d) => (
          <DataTable
            caption={t('views.provider.caption', { shop: shop.name })}
            columns={columns}
            rows={d.providers}
            rowKey={(p) => p.provider}
            empty={<EmptyState>{t('views.provider.empty')}</EmptyState>}
          />
        )}
      </Loaded>
      {isOwner ? <Configure shopId={shop.id} onSaved={list.reload} /> : null}
    </>
  );
}

function Configure(props: { shopId: string; onSaved: () => Promise<void> }) {
  const { client } = useSession();
  const action = useAction();
  const [values, setValues] = useState<Record<Field, string>>({
    publishableKey: '',
    secretKey: '',
    webhookSecret: '',
    accountId: '',
  });
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const ids: Record<Field, string> = {
    publishableKey: 'provider-publishable',
    secretKey: 'provider-secret',
    webhookSecret: 'provider-webhook-secret',
    accountId: 'provider-account',
  };
  const submit = (e: Event) => {
    e.preventDefault();
    const missing = FIELDS.filter((f) => f !== 'accountId' && !values[f].trim());
    setErrors(Object.fromEntries(missing.map((f) => [f, t('views.provider.required')])));
    if (missing[0]) {
      document.getElementById(ids[missing[0]])?.focus();
      return;
    }
    void action.run(async () => {
      try {
        const accountId = values.accountId.trim();
        const p = await client.call('configure_payment_provider', {
          id: props.shopId,
          provider: 'stripe',
          publishableKey: values.publishableKey.trim(),
          secretKey: values.secretKey.trim(),
          webhookSecret: values.webhookSecret.trim(),
          ...(accountId ? { accountId } : {}),
        });
        setValues({ publishableKey: '', secretKey: '', webhookSecret: '', accountId: '' });
        await props.onSaved();
        return t('views.provider.saved', { status: t(`views.provider.statuses.${p.status}`) });
      } catch (err) {
        const byApi = Object.fromEntries(FIELDS.map((f) => [f, f]));
        const field = fieldOf(err, byApi) as Field | undefined;
        if (field) setErrors({ [field]: t('views.provider.invalid') });
        throw err;
      }
    });
  };
  const field = (f: Field, type: 'text' | 'password', hint?: string) => (
    <TextField
      id={ids[f]}
      type={type}
      label={t(`views.provider.fields.${f}`)}
      hint={hint}
      value={values[f]}
      onValue={(v) => setValues((s) => ({ ...s, [f]: v }))}
      error={errors[f]}
      maxLength={255}
      autoComplete="off"
    />
  );
  return (
    <section aria-labelledby="provider-configure">
      <h2 id="provider-configure">{t('views.provider.configureTitle')}</h2>
      <p>{t('views.provider.configureIntro')}</p>
      <form noValidate onSubmit={submit}>
        {field('publishableKey', 'text', t('views.provider.publishableHint'))}
        {field('secretKey', 'password')}
        {field('webhookSecret', 'password')}
        {field('accountId', 'text', t('views.provider.optional'))}
        <button type="submit" class="primary" aria-describedby="provider-feedback">
          {t('views.provider.save')}
        </button>
        <Feedback of={action} id="provider-feedback" />
      </form>
    </section>
  );
}

export const paymentProviderView: ViewDef = {
  id: 'payment-provider',
  path: '/console/shops/:shopId/payment-provider',
  title: 'views.provider.title',
  component: PaymentProvider,
  nav: 'shop',
};
