/** Discount codes: the form that changes a code's validity window and the tiers it applies to (update_discount_code). */
import { useState } from 'preact/hooks';
import type { ListDiscountCodesOutput } from '@tessera/sdk';
import { Feedback, useAction } from '../kit/feedback.tsx';
import { CheckboxField, FieldGroup, SelectField, TextField } from '../kit/field.tsx';
import { instantOf, localOf } from '../kit/form.ts';
import { useLoad } from '../kit/load.tsx';
import { t } from '../i18n.ts';
import { useSession } from '../session.tsx';

type Code = ListDiscountCodesOutput['codes'][number];

/**
 * Edits one of `codes`: its start and end (empty: none) and its tiers (none ticked: every tier of the shop); calls
 * `onSaved` after the change so the list shows it.
 */
export function DiscountCodeEdit(props: { shopId: string; codes: Code[]; onSaved: () => Promise<void> }) {
  const { client } = useSession();
  const tiers = useLoad(async () => {
    const events = (await client.call('list_events', { id: props.shopId, limit: 50 })).events;
    const all = await Promise.all(events.map(async (e) => (await client.call('get_event', { id: e.id })).tiers));
    return all.flat().map((tier) => ({ id: tier.id, name: tier.name }));
  }, [client, props.shopId]);
  const save = useAction();
  const [id, setId] = useState('');
  const [startsAt, setStartsAt] = useState('');
  const [endsAt, setEndsAt] = useState('');
  const [tierIds, setTierIds] = useState<string[]>([]);
  const chosen = props.codes.find((c) => c.id === id);
  const pick = (value: string) => {
    const c = props.codes.find((x) => x.id === value);
    setId(value);
    setStartsAt(localOf(c?.startsAt));
    setEndsAt(localOf(c?.endsAt));
    setTierIds(c?.tierIds ?? []);
  };
  const submit = (e: Event) => {
    e.preventDefault();
    if (!chosen) return;
    void save.run(async () => {
      await client.call('update_discount_code', {
        id: chosen.id,
        startsAt: instantOf(startsAt),
        endsAt: instantOf(endsAt),
        tierIds: tierIds.length ? tierIds : null,
      });
      await props.onSaved();
      return t('views.discounts.saved', { code: chosen.code });
    });
  };
  return (
    <form noValidate onSubmit={submit} aria-labelledby="discount-edit">
      <h2 id="discount-edit">{t('views.discounts.edit')}</h2>
      <SelectField
        id="discount-edit-code"
        label={t('views.discounts.editCode')}
        value={id}
        onValue={pick}
        options={[['', t('views.discounts.choose')], ...props.codes.map((c): [string, string] => [c.id, c.code])]}
      />
      {chosen && (
        <>
          <TextField
            id="discount-edit-starts"
            label={t('views.discounts.startsAt')}
            type="datetime-local"
            value={startsAt}
            onValue={setStartsAt}
          />
          <TextField
            id="discount-edit-ends"
            label={t('views.discounts.endsAt')}
            type="datetime-local"
            value={endsAt}
            onValue={setEndsAt}
          />
          <FieldGroup legend={t('views.discounts.tiers')}>
            {(tiers.data ?? []).map((tier) => (
              <CheckboxField
                key={tier.id}
                id={`discount-edit-tier-${tier.id}`}
                label={tier.name}
                checked={tierIds.includes(tier.id)}
                onChecked={(on) => setTierIds(on ? [...tierIds, tier.id] : tierIds.filter((x) => x !== tier.id))}
              />
            ))}
          </FieldGroup>
          <button type="submit" class="primary" aria-describedby="discount-edit-feedback">
            {t('views.discounts.save')}
          </button>
        </>
      )}
      <Feedback of={save} id="discount-edit-feedback" />
    </form>
  );
}
