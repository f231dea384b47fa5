/**
 * A tier's form, for creating one and for editing it: name, price, pool (on create), the on-sale window and the six
 * restrictions (on-sale start and end, most per purchase, sellable, buyer countries, card schemes).
 */
import { useState } from 'preact/hooks';
import type { CreateTierInput, GetEventOutput } from '@tessera/sdk';
import { FormProblems } from '../api.ts';
import { ChoiceGroup } from '../kit/choice-group.tsx';
import { Feedback, useAction } from '../kit/feedback.tsx';
import { CheckboxField, FieldGroup, SelectField, TextField } from '../kit/field.tsx';
import { amountOf, instantOf, localOf, minorOf, useForm } from '../kit/form.ts';
import { t } from '../i18n.ts';
import { useSession } from '../session.tsx';
import { AttendeeFormFields, attendeeFormOf, useAttendeeDraft } from './attendee-form-fields.tsx';

export type Tier = GetEventOutput['tiers'][number];
type Scheme = 'visa' | 'mastercard' | 'amex' | 'discover' | 'jcb' | 'unionpay' | 'diners';
export const SCHEMES: readonly Scheme[] = ['visa', 'mastercard', 'amex', 'discover', 'jcb', 'unionpay', 'diners'];

export interface TierFormProps {
  /** The form's id prefix (`new-tier`, `edit-tier`): field ids are `<prefix>-name`, … */
  prefix: string;
  eventId: string;
  currency: string;
  /** The pools a new tier may sell ([id, label]); absent when editing (a tier keeps its pool). */
  pools?: readonly (readonly [string, string])[];
  /** The tier being edited. */
  tier?: Tier;
  /** After a successful save, with the text announced. */
  onSaved: (message: string) => void;
  onCancel?: () => void;
}

export function TierForm(p: TierFormProps) {
  const { client } = useSession();
  const tier = p.tier;
  const id = (name: string) => `${p.prefix}-${name}`;
  const [name, setName] = useState(tier?.name ?? '');
  const [price, setPrice] = useState(tier ? amountOf(tier.priceMinor, p.currency) : '');
  const [poolId, setPoolId] = useState(p.pools?.[0]?.[0] ?? '');
  const [onSaleStart, setOnSaleStart] = useState(localOf(tier?.onSaleStart));
  const [onSaleEnd, setOnSaleEnd] = useState(localOf(tier?.onSaleEnd));
  const [maxQty, setMaxQty] = useState(tier?.maxQtyPerPurchase ? String(tier.maxQtyPerPurchase) : '');
  const [sellable, setSellable] = useState(tier?.sellable ?? true);
  const [geos, setGeos] = useState((tier?.allowedGeos ?? []).join(' '));
  const [schemes, setSchemes] = useState<string[]>(tier?.allowedSchemes ?? []);
  const attendee = useAttendeeDraft(tier?.attendeeForm);
  const save = useAction();
  const form = useForm({
    name: id('name'),
    priceMinor: id('price'),
    poolId: id('pool'),
    onSaleStart: id('start'),
    onSaleEnd: id('end'),
    maxQtyPerPurchase: id('max'),
    allowedGeos: id('geos'),
    allowedSchemes: id('schemes'),
    'code:currency_mismatch': id('price'),
  });

  /** The restriction fields as the API takes them (null clears one). */
  const restrictions = () => {
    const problems: Record<string, string> = {};
    const priceMinor = minorOf(price, p.currency);
    if (!name.trim()) problems[id('name')] = t('views.tiers.needName');
    if (priceMinor === undefined) problems[id('price')] = t('views.tiers.badPrice');
    const start = instantOf(onSaleStart);
    const end = instantOf(onSaleEnd);
    if (start && end && end <= start) problems[id('end')] = t('views.tiers.endAfterStart');
    const max = maxQty.trim() ? Number(maxQty) : null;
    if (max !== null && !(Number.isInteger(max) && max >= 1)) problems[id('max')] = t('views.tiers.badMax');
    const countries = geos
      .split(/[\s,]+/)
      .filter(Boolean)
      .map((g) => g.toUpperCase());
    if (countries.some((g) => !/^[A-Z]{2}$/.test(g))) problems[id('geos')] = t('views.tiers.badGeos');
    if (!tier && !poolId) problems[id('pool')] = t('views.tiers.needPool');
    const attendeeForm = attendeeFormOf(attendee, id, problems);
    if (Object.keys(problems).length) throw new FormProblems(problems);
    return {
      name: name.trim(),
      priceMinor: priceMinor!,
      onSaleStart: start,
      onSaleEnd: end,
      maxQtyPerPurchase: max,
      sellable,
      allowedGeos: countries,
      // The API types the list as tuples of at most seven schemes; the boxes offer each scheme once.
      allowedSchemes: schemes as unknown as NonNullable<CreateTierInput['allowedSchemes']>,
      // Only a tier that asks (or asked) something sends the form: other tiers' writes stay as they were.
      ...(attendeeForm || tier?.attendeeForm ? { attendeeForm } : {}),
    };
  };

  return (
    <form
      novalidate
      aria-labelledby={id('heading')}
      onSubmit={(e) => {
        e.preventDefault();
        void form.submit(save, async () => {
          const fields = restrictions();
          if (tier) {
            await client.call('update_tier', { id: tier.id, ...fields });
            p.onSaved(t('views.tiers.saved', { name: fields.name }));
            return t('views.tiers.saved', { name: fields.name });
          }
          await client.call('create_tier', { eventId: p.eventId, poolId, ...fields });
          p.onSaved(t('views.tiers.created', { name: fields.name }));
          setName('');
          setPrice('');
          return t('views.tiers.created', { name: fields.name });
        });
      }}
    >
      <h3 id={id('heading')}>{tier ? t('views.tiers.edit', { name: tier.name }) : t('views.tiers.create')}</h3>
      <div class="form-grid">
        <TextField
          id={id('name')}
          label={t('views.tiers.name')}
          required
          maxLength={200}
          value={name}
          onValue={setName}
          error={form.errors[id('name')]}
        />
        <TextField
          id={id('price')}
          label={t('views.tiers.price', { currency: p.currency })}
          inputMode="decimal"
          required
          value={price}
          onValue={setPrice}
          error={form.errors[id('price')]}
        />
        {p.pools ? (
          <SelectField
            id={id('pool')}
            label={t('views.tiers.pool')}
            options={p.pools}
            value={poolId}
            onValue={setPoolId}
            error={form.errors[id('pool')]}
          />
        ) : null}
      </div>
      <FieldGroup legend={t('views.tiers.restrictions')}>
        <div class="form-grid">
          <TextField
            id={id('start')}
            type="datetime-local"
            label={t('views.tiers.onSaleStart')}
            hint={t('views.tiers.onSaleStartHint')}
            value={onSaleStart}
            onValue={setOnSaleStart}
            error={form.errors[id('start')]}
          />
          <TextField
            id={id('end')}
            type="datetime-local"
            label={t('views.tiers.onSaleEnd')}
            hint={t('views.tiers.onSaleEndHint')}
            value={onSaleEnd}
            onValue={setOnSaleEnd}
            error={form.errors[id('end')]}
          />
          <TextField
            id={id('max')}
            type="number"
            min={1}
            step={1}
            label={t('views.tiers.max')}
            hint={t('views.tiers.maxHint')}
            value={maxQty}
            onValue={setMaxQty}
            error={form.errors[id('max')]}
          />
          <TextField
            id={id('geos')}
            label={t('views.tiers.geos')}
            hint={t('views.tiers.geosHint')}
            value={geos}
            onValue={setGeos}
            error={form.errors[id('geos')]}
          />
        </div>
        <CheckboxField
          id={id('sellable')}
          label={t('views.tiers.sellable')}
          hint={t('views.tiers.sellableHint')}
          checked={sellable}
          onChecked={setSellable}
        />
        <ChoiceGroup
          id={id('schemes')}
          legend={t('views.tiers.schemes')}
          hint={t('views.tiers.schemesHint')}
          error={form.errors[id('schemes')]}
          choices={SCHEMES.map((s) => ({ value: s, label: t(`views.tiers.scheme.${s}`) }))}
          selected={schemes}
          onSelected={setSchemes}
        />
      </FieldGroup>
      <AttendeeFormFields draft={attendee} fieldId={id} errors={form.errors} />
      <div class="actions">
        <button type="submit" id={id('submit')} aria-busy={save.busy ? 'true' : undefined}>
          {tier ? t('views.tiers.save') : t('views.tiers.createButton')}
        </button>
        {p.onCancel ? (
          <button type="button" class="secondary" onClick={p.onCancel}>
            {t('views.tiers.cancelEdit')}
          </button>
        ) : null}
        <Feedback of={save} />
      </div>
    </form>
  );
}
