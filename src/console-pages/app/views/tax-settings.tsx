/**
 * Tax and invoices, in the shop's settings: the shop's tax rates (a standard one and an optional second), whether
 * prices include tax, and invoicing with the seller's details and the invoice prefix (set_tax_settings); an owner saves
 * or removes them. docs/tax-and-invoices.md.
 */
import { useState } from 'preact/hooks';
import type { GetTaxSettingsOutput } from '@tessera/sdk';
import { fieldOf } from '../api.ts';
import { Feedback, useAction } from '../kit/feedback.tsx';
import { CheckboxField, TextAreaField, TextField } from '../kit/field.tsx';
import { Loaded, useLoad } from '../kit/load.tsx';
import { PageHeader } from '../kit/page-header.tsx';
import { t } from '../i18n.ts';
import { useSession } from '../session.tsx';
import type { ViewDef, ViewProps } from '../view.ts';

type Settings = NonNullable<GetTaxSettingsOutput['settings']>;

function TaxSettings({ shop }: ViewProps) {
  const { client, isOwner } = useSession();
  const settings = useLoad(() => client.call('get_tax_settings', { merchantId: shop!.id }), [client, shop?.id]);
  if (!shop) return null;
  return (
    <>
      <PageHeader title={t('views.tax.title')} intro={t('views.tax.intro', { shop: shop.name })} />
      <Loaded of={settings}>
        {(d) => (
          <>
            <Status s={d.settings} />
            {isOwner ? <TaxForm shopId={shop.id} s={d.settings} onSaved={settings.reload} /> : null}
          </>
        )}
      </Loaded>
    </>
  );
}

function Status({ s }: { s: Settings | null }) {
  if (!s) return <p>{t('views.tax.off')}</p>;
  return (
    <dl class="stats">
      <div>
        <dt>{t('views.tax.rates')}</dt>
        <dd class="small">{s.rates.map((r) => `${r.name} (${r.percent} %)`).join(', ')}</dd>
      </div>
      <div>
        <dt>{t('views.tax.prices')}</dt>
        <dd class="small">{t(s.pricesIncludeTax ? 'views.tax.included' : 'views.tax.added')}</dd>
      </div>
      <div>
        <dt>{t('views.tax.invoices')}</dt>
        <dd class="small">
          {s.invoicing ? t('views.tax.invoicingOn', { prefix: s.invoicePrefix }) : t('views.tax.none')}
        </dd>
      </div>
    </dl>
  );
}

const FIELDS = ['rate1', 'percent1', 'rate2', 'percent2', 'invoicePrefix', 'legalName', 'address', 'vatId'] as const;
type Field = (typeof FIELDS)[number];

function initial(s: Settings | null): Record<Field, string> {
  const [a, b] = s?.rates ?? [];
  return {
    rate1: a?.name ?? '',
    percent1: a ? String(a.percent) : '',
    rate2: b?.name ?? '',
    percent2: b ? String(b.percent) : '',
    invoicePrefix: s?.invoicePrefix ?? 'INV',
    legalName: s?.seller?.legalName ?? '',
    address: s?.seller?.address ?? '',
    vatId: s?.seller?.vatId ?? '',
  };
}

function TaxForm(props: { shopId: string; s: Settings | null; onSaved: () => Promise<void> }) {
  const { client } = useSession();
  const save = useAction();
  const off = useAction();
  const [v, setV] = useState(() => initial(props.s));
  const [included, setIncluded] = useState(props.s?.pricesIncludeTax ?? true);
  const [invoicing, setInvoicing] = useState(props.s?.invoicing ?? false);
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const text = (f: Field, label: string, extra: { maxLength: number; hint?: string }) => (
    <TextField
      id={`tax-${f}`}
      label={label}
      value={v[f]}
      onValue={(x) => setV((s) => ({ ...s, [f]: x }))}
      error={errors[f]}
      {...extra}
    />
  );
  const submit = (e: Event) => {
    e.preventDefault();
    const bad: Partial<Record<Field, string>> = {};
    const percent = (x: string) => /^\d{1,3}([.,]\d{1,2})?$/.test(x.trim()) && Number(x.replace(',', '.')) <= 100;
    if (!v.rate1.trim()) bad.rate1 = t('views.tax.required');
    if (!percent(v.percent1)) bad.percent1 = t('views.tax.percentInvalid');
    if (v.rate2.trim() && !percent(v.percent2)) bad.percent2 = t('views.tax.percentInvalid');
    if (invoicing && !v.legalName.trim()) bad.legalName = t('views.tax.required');
    if (invoicing && !v.address.trim()) bad.address = t('views.tax.required');
    setErrors(bad);
    const first = FIELDS.find((f) => bad[f]);
    if (first) {
      document.getElementById(`tax-${first}`)?.focus();
      return;
    }
    const rate = (id: string, name: string, p: string) => ({
      id,
      name: name.trim(),
      percent: Number(p.replace(',', '.')),
    });
    void save.run(async () => {
      try {
        await client.call('set_tax_settings', {
          merchantId: props.shopId,
          pricesIncludeTax: included,
          rates: v.rate2.trim()
            ? [rate('standard', v.rate1, v.percent1), rate('second', v.rate2, v.percent2)]
            : [rate('standard', v.rate1, v.percent1)],
          invoicing,
          ...(v.invoicePrefix.trim() ? { invoicePrefix: v.invoicePrefix.trim() } : {}),
          ...(v.legalName.trim() && v.address.trim()
            ? {
                seller: {
                  legalName: v.legalName.trim(),
                  address: v.address.trim(),
                  ...(v.vatId.trim() ? { vatId: v.vatId.trim() } : {}),
                },
              }
            : {}),
        });
      } catch (err) {
        const field = fieldOf(err, { invoicePrefix: 'invoicePrefix', seller: 'legalName', rates: 'rate1' });
        if (field) setErrors({ [field]: t('views.tax.invalid') });
        throw err;
      }
      await props.onSaved();
      return t('views.tax.saved');
    });
  };
  const remove = () =>
    void off.run(async () => {
      await client.call('set_tax_settings', { merchantId: props.shopId, enabled: false });
      await props.onSaved();
      return t('views.tax.removed');
    });
  return (
    <section class="panel-section" aria-labelledby="tax-form-title">
      <h2 id="tax-form-title">{t('views.tax.configure')}</h2>
      <form noValidate onSubmit={submit}>
        {text('rate1', t('views.tax.rate1'), { maxLength: 60, hint: t('views.tax.rateHint') })}
        {text('percent1', t('views.tax.percent1'), { maxLength: 6 })}
        {text('rate2', t('views.tax.rate2'), { maxLength: 60, hint: t('views.tax.optional') })}
        {text('percent2', t('views.tax.percent2'), { maxLength: 6 })}
        <CheckboxField
          id="tax-included"
          label={t('views.tax.includedLabel')}
          checked={included}
          onChecked={setIncluded}
        />
        <CheckboxField
          id="tax-invoicing"
          label={t('views.tax.invoicingLabel')}
          checked={invoicing}
          onChecked={setInvoicing}
        />
        {text('invoicePrefix', t('views.tax.prefix'), { maxLength: 20 })}
        {text('legalName', t('views.tax.legalName'), { maxLength: 200 })}
        <TextAreaField
          id="tax-address"
          label={t('views.tax.address')}
          value={v.address}
          onValue={(x) => setV((s) => ({ ...s, address: x }))}
          error={errors.address}
          maxLength={500}
        />
        {text('vatId', t('views.tax.vatId'), { maxLength: 40, hint: t('views.tax.optional') })}
        <div class="actions">
          <button type="submit" class="primary" aria-describedby="tax-feedback">
            {t('views.tax.save')}
          </button>
          {props.s ? (
            <button type="button" class="secondary" onClick={remove}>
              {t('views.tax.remove')}
            </button>
          ) : null}
        </div>
        <Feedback of={save} id="tax-feedback" />
        <Feedback of={off} />
      </form>
    </section>
  );
}

export const taxSettingsView: ViewDef = {
  id: 'tax-settings',
  path: '/console/shops/:shopId/tax',
  title: 'views.tax.title',
  component: TaxSettings,
  nav: 'shop',
};
