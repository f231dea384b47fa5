/**
 * Discount codes: the shop's codes with their terms, uses and window; a form to create a percent or fixed-amount code
 * (with an optional use limit), a button per code to disable or enable it again, and a form that changes a code's
 * window and tiers (discount-code-edit.tsx; docs/discount-codes.md).
 */
import { useState } from 'preact/hooks';
import type { ListDiscountCodesOutput } from '@tessera/sdk';
import { fieldOf } from '../api.ts';
import { DataTable, type Column } from '../kit/data-table.tsx';
import { DiscountCodeEdit } from './discount-code-edit.tsx';
import { EmptyState } from '../kit/empty-state.tsx';
import { Feedback, useAction } from '../kit/feedback.tsx';
import { SelectField, TextField } from '../kit/field.tsx';
import { count, money, when } from '../kit/format.ts';
import { Loaded, useLoad } from '../kit/load.tsx';
import { PageHeader } from '../kit/page-header.tsx';
import { t } from '../i18n.ts';
import { useSession } from '../session.tsx';
import type { ViewDef, ViewProps } from '../view.ts';

type Code = ListDiscountCodesOutput['codes'][number];

function DiscountCodes({ shop }: ViewProps) {
  const { client } = useSession();
  const codes = useLoad(
    async () => (shop ? (await client.call('list_discount_codes', { merchantId: shop.id, limit: 200 })).codes : []),
    [client, shop?.id],
  );
  const create = useAction();
  const toggle = useAction();
  const [code, setCode] = useState('');
  const [kind, setKind] = useState<'percent' | 'fixed'>('percent');
  const [amount, setAmount] = useState('');
  const [maxUses, setMaxUses] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  if (!shop) return null;
  const off = (c: Code) =>
    c.kind === 'percent' ? `${c.percentOff ?? 0} %` : money(c.amountOffMinor ?? 0, c.currency ?? shop.currency);
  const columns: Column<Code>[] = [
    { key: 'code', label: t('views.discounts.code'), render: (c) => <code>{c.code}</code> },
    { key: 'off', label: t('views.discounts.off'), render: off },
    {
      key: 'uses',
      label: t('views.discounts.uses'),
      render: (c) => (c.maxUses ? `${count(c.uses)} / ${count(c.maxUses)}` : count(c.uses)),
      numeric: true,
    },
    { key: 'ends', label: t('views.discounts.ends'), render: (c) => (c.endsAt ? when(c.endsAt) : '—') },
    {
      key: 'state',
      label: t('views.discounts.state'),
      render: (c) => t(c.disabled ? 'views.discounts.disabled' : 'views.discounts.active'),
    },
    {
      key: 'actions',
      label: t('views.discounts.actions'),
      hiddenLabel: true,
      render: (c) => (
        <button
          type="button"
          class="secondary"
          aria-describedby="discount-toggle-feedback"
          onClick={() =>
            void toggle.run(async () => {
              await client.call('update_discount_code', { id: c.id, disabled: !c.disabled });
              await codes.reload();
              return t(c.disabled ? 'views.discounts.enabledDone' : 'views.discounts.disabledDone', { code: c.code });
            })
          }
        >
          {t(c.disabled ? 'views.discounts.enable' : 'views.discounts.disable', { code: c.code })}
        </button>
      ),
    },
  ];
  const submit = (e: Event) => {
    e.preventDefault();
    setErrors({});
    void create.run(async () => {
      const value = Number(amount);
      const limit = maxUses.trim() ? Number(maxUses) : undefined;
      try {
        const made = await client.call('create_discount_code', {
          merchantId: shop.id,
          code: code.trim(),
          kind,
          ...(kind === 'percent' ? { percentOff: value } : { amountOffMinor: Math.round(value * 100) }),
          ...(limit ? { maxUses: limit } : {}),
        });
        setCode('');
        setAmount('');
        setMaxUses('');
        await codes.reload();
        return t('views.discounts.created', { code: made.code });
      } catch (err) {
        const field = fieldOf(err, {
          code: 'discount-code',
          'code:discount_code_taken': 'discount-code',
          percentOff: 'discount-amount',
          amountOffMinor: 'discount-amount',
          maxUses: 'discount-max-uses',
        });
        if (field) setErrors({ [field]: t('views.discounts.invalid') });
        throw err;
      }
    });
  };
  return (
    <>
      <PageHeader title={t('views.discounts.title')} intro={t('views.discounts.intro')} />
      <Feedback of={toggle} id="discount-toggle-feedback" />
      <Loaded of={codes}>
        {(rows) => (
          <DataTable
            caption={t('views.discounts.caption', { shop: shop.name })}
            columns={columns}
            rows={rows}
            rowKey={(c) => c.id}
            empty={<EmptyState>{t('views.discounts.empty')}</EmptyState>}
          />
        )}
      </Loaded>
      {codes.data?.length ? <DiscountCodeEdit shopId={shop.id} codes={codes.data} onSaved={codes.reload} /> : null}
      <form noValidate onSubmit={submit} aria-labelledby="discount-new">
        <h2 id="discount-new">{t('views.discounts.new')}</h2>
        <TextField
          id="discount-code"
          label={t('views.discounts.code')}
          hint={t('views.discounts.codeHint')}
          value={code}
          onValue={setCode}
          error={errors['discount-code']}
          maxLength={40}
          autoComplete="off"
          required
        />
        <SelectField
          id="discount-kind"
          label={t('views.discounts.kind')}
          value={kind}
          onValue={(v) => setKind(v === 'fixed' ? 'fixed' : 'percent')}
          options={[
            ['percent', t('views.discounts.percent')],
            ['fixed', t('views.discounts.fixed', { currency: shop.currency })],
          ]}
        />
        <TextField
          id="discount-amount"
          label={t(kind === 'percent' ? 'views.discounts.percentOff' : 'views.discounts.amountOff')}
          type="number"
          inputMode="decimal"
          min={kind === 'percent' ? 1 : 0.01}
          max={kind === 'percent' ? 100 : undefined}
          step={kind === 'percent' ? 1 : 0.01}
          value={amount}
          onValue={setAmount}
          error={errors['discount-amount']}
          required
        />
        <TextField
          id="discount-max-uses"
          label={t('views.discounts.maxUses')}
          hint={t('views.discounts.maxUsesHint')}
          type="number"
          inputMode="numeric"
          min={1}
          step={1}
          value={maxUses}
          onValue={setMaxUses}
          error={errors['discount-max-uses']}
        />
        <button type="submit" class="primary" aria-describedby="discount-create-feedback">
          {t('views.discounts.create')}
        </button>
        <Feedback of={create} id="discount-create-feedback" />
      </form>
    </>
  );
}

export const discountCodesView: ViewDef = {
  id: 'discount-codes',
  path: '/console/shops/:shopId/discount-codes',
  title: 'views.discounts.title',
  component: DiscountCodes,
  nav: 'shop',
};
