/**
 * Wallet passes: whether the shop offers Apple Wallet passes and Google Wallet save links with its tickets (off by
 * default), and, for an owner, switching each on with the merchant's own certificates or key, or off again.
 */
import { useState } from 'preact/hooks';
import type { GetWalletPassesOutput } from '@tessera/sdk';
import { fieldOf } from '../api.ts';
import { Feedback, useAction } from '../kit/feedback.tsx';
import { TextAreaField, TextField } from '../kit/field.tsx';
import { Loaded, useLoad } from '../kit/load.tsx';
import { PageHeader } from '../kit/page-header.tsx';
import { when } from '../kit/format.ts';
import { t } from '../i18n.ts';
import { useSession } from '../session.tsx';
import type { ViewDef, ViewProps } from '../view.ts';

const APPLE = [
  'passTypeIdentifier',
  'teamIdentifier',
  'organizationName',
  'signerCertificate',
  'signerKey',
  'signerKeyPassphrase',
  'wwdrCertificate',
] as const;
const GOOGLE = ['issuerId', 'classId', 'serviceAccountEmail', 'privateKey'] as const;
const OPTIONAL = new Set<string>(['organizationName', 'signerKeyPassphrase']);
const PEM = new Set<string>(['signerCertificate', 'signerKey', 'wwdrCertificate', 'privateKey']);
const SECRET = new Set<string>(['signerKeyPassphrase']);

function WalletPasses({ shop }: ViewProps) {
  const { client, isOwner } = useSession();
  const settings = useLoad(() => client.call('get_wallet_passes', { id: shop!.id }), [client, shop?.id]);
  if (!shop) return null;
  return (
    <>
      <PageHeader title={t('views.wallet.title')} intro={t('views.wallet.intro', { shop: shop.name })} />
      <Loaded of={settings}>{(d) => <Status d={d} />}</Loaded>
      {isOwner ? (
        <>
          <WalletForm wallet="apple" fields={APPLE} shopId={shop.id} onSaved={settings.reload} />
          <WalletForm wallet="google" fields={GOOGLE} shopId={shop.id} onSaved={settings.reload} />
        </>
      ) : null}
    </>
  );
}

function Status({ d }: { d: GetWalletPassesOutput }) {
  return (
    <dl class="stats">
      <div>
        <dt>{t('views.wallet.apple.title')}</dt>
        <dd class="small">
          {d.apple
            ? t('views.wallet.apple.on', {
                id: d.apple.passTypeIdentifier,
                team: d.apple.teamIdentifier,
                expires: when(d.apple.certificateExpiresAt),
              })
            : t('views.wallet.off')}
        </dd>
      </div>
      <div>
        <dt>{t('views.wallet.google.title')}</dt>
        <dd class="small">
          {d.google
            ? t('views.wallet.google.on', { issuer: d.google.issuerId, classId: d.google.classId })
            : t('views.wallet.off')}
        </dd>
      </div>
    </dl>
  );
}

function WalletForm<F extends string>(props: {
  wallet: 'apple' | 'google';
  fields: readonly F[];
  shopId: string;
  onSaved: () => Promise<void>;
}) {
  const { client } = useSession();
  const save = useAction();
  const off = useAction();
  const empty = () => Object.fromEntries(props.fields.map((f) => [f, ''])) as Record<F, string>;
  const [values, setValues] = useState<Record<F, string>>(empty);
  const [errors, setErrors] = useState<Partial<Record<F, string>>>({});
  const id = (f: F) => `wallet-${props.wallet}-${f}`;
  const submit = (e: Event) => {
    e.preventDefault();
    const missing = props.fields.filter((f) => !OPTIONAL.has(f) && !values[f].trim());
    setErrors(Object.fromEntries(missing.map((f) => [f, t('views.wallet.required')])) as Partial<Record<F, string>>);
    if (missing[0]) {
      document.getElementById(id(missing[0]))?.focus();
      return;
    }
    void save.run(async () => {
      const given = Object.fromEntries(props.fields.filter((f) => values[f].trim()).map((f) => [f, values[f].trim()]));
      try {
        await client.call('configure_wallet_passes', { id: props.shopId, [props.wallet]: given } as never);
      } catch (err) {
        const field = fieldOf(err, Object.fromEntries(props.fields.map((f) => [f, f]))) as F | undefined;
        if (field) setErrors({ [field]: t('views.wallet.invalid') } as Partial<Record<F, string>>);
        throw err;
      }
      setValues(empty());
      await props.onSaved();
      return t('views.wallet.saved');
    });
  };
  const switchOff = () =>
    void off.run(async () => {
      await client.call('configure_wallet_passes', { id: props.shopId, [props.wallet]: null } as never);
      await props.onSaved();
      return t('views.wallet.switchedOff');
    });
  const titleId = `wallet-${props.wallet}-title`;
  return (
    <section class="panel-section" aria-labelledby={titleId}>
      <h2 id={titleId}>{t(`views.wallet.${props.wallet}.configure`)}</h2>
      <p>{t(`views.wallet.${props.wallet}.intro`)}</p>
      <form noValidate onSubmit={submit}>
        {props.fields.map((f) => {
          const common = {
            id: id(f),
            label: t(`views.wallet.fields.${f}`),
            hint: OPTIONAL.has(f) ? t('views.wallet.optional') : undefined,
            value: values[f],
            onValue: (v: string) => setValues((s) => ({ ...s, [f]: v })),
            error: errors[f],
          };
          return PEM.has(f) ? (
            <TextAreaField key={f} {...common} maxLength={20000} />
          ) : (
            <TextField
              key={f}
              {...common}
              type={SECRET.has(f) ? 'password' : 'text'}
              maxLength={255}
              autoComplete="off"
            />
          );
        })}
        <div class="actions">
          <button type="submit" class="primary" aria-describedby={`wallet-${props.wallet}-feedback`}>
            {t('views.wallet.save')}
          </button>
          <button type="button" class="secondary" onClick={switchOff}>
            {t('views.wallet.switchOff')}
          </button>
        </div>
        <Feedback of={save} id={`wallet-${props.wallet}-feedback`} />
        <Feedback of={off} />
      </form>
    </section>
  );
}

export const walletPassesView: ViewDef = {
  id: 'wallet-passes',
  path: '/console/shops/:shopId/wallet-passes',
  title: 'views.wallet.title',
  component: WalletPasses,
  nav: 'shop',
};
