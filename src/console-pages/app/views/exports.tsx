/**
 * Exports: the shop's orders or tickets as CSV (UTF-8 with BOM, formulas neutralised), optionally one event and a
 * creation-date range; the server streams the file to a single-use link the browser downloads at once.
 */
import { useState } from 'preact/hooks';
import { fieldOf } from '../api.ts';
import { dayAfter, dayStart } from '../kit/days.ts';
import { downloadUrl } from '../kit/download.ts';
import { Feedback, useAction } from '../kit/feedback.tsx';
import { SelectField, TextField } from '../kit/field.tsx';
import { useLoad } from '../kit/load.tsx';
import { PageHeader } from '../kit/page-header.tsx';
import { t } from '../i18n.ts';
import { useSession } from '../session.tsx';
import type { ViewDef, ViewProps } from '../view.ts';

function Exports({ shop }: ViewProps) {
  const { client } = useSession();
  const events = useLoad(() => client.call('list_events', { id: shop!.id, limit: 100 }), [client, shop?.id]);
  const action = useAction();
  const [kind, setKind] = useState<'orders' | 'tickets'>('orders');
  const [eventId, setEventId] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [errors, setErrors] = useState<{ from?: string; to?: string }>({});
  if (!shop) return null;
  const submit = (e: Event) => {
    e.preventDefault();
    const problems = from && to && to < from ? { to: t('views.exports.toBeforeFrom') } : {};
    setErrors(problems);
    if (problems.to) {
      document.getElementById('export-to')?.focus();
      return;
    }
    void action.run(async () => {
      try {
        const createdFrom = dayStart(from);
        const createdBefore = dayAfter(to);
        const out = await client.call('create_export', {
          merchantId: shop.id,
          kind,
          ...(eventId ? { eventId } : {}),
          ...(createdFrom ? { createdFrom } : {}),
          ...(createdBefore ? { createdBefore } : {}),
        });
        downloadUrl(out.downloadUrl, out.filename);
        return t('views.exports.started', { filename: out.filename });
      } catch (err) {
        const field = fieldOf(err, { createdFrom: 'export-from', createdBefore: 'export-to' });
        if (field) setErrors({ [field === 'export-from' ? 'from' : 'to']: t('views.exports.badDate') });
        throw err;
      }
    });
  };
  return (
    <>
      <PageHeader title={t('views.exports.title')} intro={t('views.exports.intro')} />
      <form noValidate onSubmit={submit}>
        <SelectField
          id="export-kind"
          label={t('views.exports.kind')}
          value={kind}
          onValue={(v) => setKind(v === 'tickets' ? 'tickets' : 'orders')}
          options={[
            ['orders', t('views.exports.kinds.orders')],
            ['tickets', t('views.exports.kinds.tickets')],
          ]}
        />
        <SelectField
          id="export-event"
          label={t('views.exports.event')}
          value={eventId}
          onValue={setEventId}
          options={[
            ['', t('views.exports.allEvents')],
            ...(events.data?.events ?? []).map((ev) => [ev.id, ev.title] as const),
          ]}
        />
        <TextField
          id="export-from"
          type="date"
          label={t('views.exports.from')}
          hint={t('views.exports.dateHint')}
          value={from}
          onValue={setFrom}
          error={errors.from}
        />
        <TextField
          id="export-to"
          type="date"
          label={t('views.exports.to')}
          hint={t('views.exports.dateHint')}
          value={to}
          onValue={setTo}
          error={errors.to}
        />
        <button type="submit" class="primary" aria-describedby="export-feedback">
          {t('views.exports.download')}
        </button>
        <Feedback of={action} id="export-feedback" />
      </form>
      <section aria-labelledby="export-format">
        <h2 id="export-format">{t('views.exports.formatTitle')}</h2>
        <p>{t('views.exports.format')}</p>
        <p>
          {t('views.exports.columns', { kind: t(`views.exports.kinds.${kind}`) })}{' '}
          <code>{kind === 'orders' ? ORDER_COLUMNS : TICKET_COLUMNS}</code>
        </p>
      </section>
    </>
  );
}

const ORDER_COLUMNS =
  'order_id, created_at, state, buyer_email, buyer_name, event_id, event_title, tier_name, quantity, total_minor, ' +
  'refunded_minor, currency';
const TICKET_COLUMNS =
  'ticket_id, order_id, created_at, state, checked_in_at, buyer_email, buyer_name, event_id, event_title, tier_name, ' +
  'currency';

export const exportsView: ViewDef = {
  id: 'exports',
  path: '/console/shops/:shopId/exports',
  title: 'views.exports.title',
  component: Exports,
  nav: 'shop',
};
