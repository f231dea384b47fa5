/**
 * An event's page: its details (edit), its pools (sold / held / available, capacity changes, a new pool), its tiers
 * (all six restrictions, edit, retire) and cancelling it, with a confirmation that says what happens to sold tickets.
 */
import { useState } from 'preact/hooks';
import { ConfirmDialog } from '../kit/confirm-dialog.tsx';
import { Feedback, useAction } from '../kit/feedback.tsx';
import { TextField } from '../kit/field.tsx';
import { localOf } from '../kit/form.ts';
import { count, money, when } from '../kit/format.ts';
import { Loaded, useLoad } from '../kit/load.tsx';
import { PageHeader } from '../kit/page-header.tsx';
import { t } from '../i18n.ts';
import { useSession, type Shop } from '../session.tsx';
import type { ViewDef, ViewProps } from '../view.ts';
import { Pools, type PoolRow } from './event-pools.tsx';
import { Tiers } from './event-tiers.tsx';
import { useEventFields } from './event-fields.tsx';

function EventPage({ params, query, shop }: ViewProps) {
  const { client } = useSession();
  const eventId = params.eventId!;
  const data = useLoad(async () => {
    const [{ event, tiers }, { pools }, overview] = await Promise.all([
      client.call('get_event', { id: eventId }),
      client.call('list_pools', { merchantId: shop!.id, limit: 1000 }),
      client.call('get_sales_overview', { merchantId: shop!.id, eventId }),
    ]);
    const stats = overview.events.find((e) => e.eventId === eventId);
    const rows: PoolRow[] = pools
      .filter((p) => p.eventId === eventId)
      .map((p) => {
        const s = stats?.pools.find((x) => x.poolId === p.id);
        return {
          id: p.id,
          title: p.title ?? p.id,
          capacity: p.capacity,
          available: p.availableCount,
          sold: s?.sold ?? 0,
          held: s?.held ?? 0,
        };
      });
    const refunds = event.cancelledAt
      ? await client.call('get_event_refunds', { id: eventId }).catch(() => null)
      : null;
    return { event, tiers, pools: rows, stats, refunds };
  }, [client, eventId, shop]);
  const title = data.data?.event.title ?? t('views.event.title');
  return (
    <>
      <PageHeader
        title={title}
        intro={query.created ? t('views.event.created') : undefined}
        actions={
          data.data && !data.data.event.cancelledAt ? (
            <CancelEvent shop={shop!} data={data.data} onDone={() => void data.reload()} />
          ) : null
        }
      />
      <Loaded of={data}>
        {(d) => (
          <>
            {d.event.cancelledAt ? (
              <p class="notice" role="note">
                {t('views.event.isCancelled', { when: when(d.event.cancelledAt) })}{' '}
                {d.refunds
                  ? t('views.event.refundProgress', { refunded: d.refunds.refunded, total: d.refunds.total })
                  : ''}
              </p>
            ) : null}
            <EventDetails event={d.event} onSaved={() => void data.reload()} />
            <Pools
              shop={shop!}
              eventId={eventId}
              pools={d.pools}
              cancelled={!!d.event.cancelledAt}
              onChanged={() => void data.reload()}
            />
            <Tiers
              shop={shop!}
              eventId={eventId}
              tiers={d.tiers}
              pools={d.pools}
              cancelled={!!d.event.cancelledAt}
              onChanged={() => void data.reload()}
            />
          </>
        )}
      </Loaded>
    </>
  );
}

type EventData = {
  event: {
    id: string;
    title: string;
    venue: string | null;
    startsAt: string;
    endsAt: string | null;
    timeZone?: string;
    cancelledAt: string | null;
  };
  pools: PoolRow[];
  stats: { revenue: { currency: string; netMinor: number } } | undefined;
};

/** The event's title, venue and times (an owner edits them). */
function EventDetails({ event, onSaved }: { event: EventData['event']; onSaved: () => void }) {
  const { client, isOwner } = useSession();
  const { form, check, fields } = useEventFields('edit-event', {
    title: event.title,
    venue: event.venue ?? '',
    startsAt: localOf(event.startsAt),
    endsAt: localOf(event.endsAt),
    timeZone: event.timeZone ?? 'UTC',
  });
  const save = useAction();
  if (!isOwner || event.cancelledAt)
    return (
      <dl class="stats">
        <div>
          <dt>{t('views.events.colStarts')}</dt>
          <dd>
            {when(event.startsAt, event.timeZone)} ({event.timeZone ?? 'UTC'})
          </dd>
        </div>
        <div>
          <dt>{t('views.events.colVenue')}</dt>
          <dd>{event.venue ?? '—'}</dd>
        </div>
      </dl>
    );
  return (
    <section class="panel-section" aria-labelledby="event-details-title">
      <h2 id="event-details-title">{t('views.event.details')}</h2>
      <form
        novalidate
        onSubmit={(e) => {
          e.preventDefault();
          void form.submit(save, async () => {
            const ev = check();
            await client.call('update_event', {
              id: event.id,
              title: ev.title,
              venue: ev.venue || null,
              startsAt: ev.starts,
              endsAt: ev.ends,
              timeZone: ev.timeZone || 'UTC',
            });
            onSaved();
            return t('views.event.saved');
          });
        }}
      >
        <div class="form-grid">{fields}</div>
        <div class="actions">
          <button type="submit" aria-busy={save.busy ? 'true' : undefined}>
            {t('views.event.save')}
          </button>
          <Feedback of={save} />
        </div>
      </form>
    </section>
  );
}

/** Cancelling: the confirmation says how many tickets are sold and that they are refunded in full, and asks why. */
function CancelEvent({ shop, data, onDone }: { shop: Shop; data: EventData; onDone: () => void }) {
  const { client, isOwner } = useSession();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [done, setDone] = useState('');
  if (!isOwner) return null;
  const sold = data.pools.reduce((n, p) => n + p.sold, 0);
  const held = data.pools.reduce((n, p) => n + p.held, 0);
  const net = data.stats ? money(data.stats.revenue.netMinor, data.stats.revenue.currency) : money(0, shop.currency);
  return (
    <>
      <button type="button" class="danger" onClick={() => setOpen(true)}>
        {t('views.event.cancel')}
      </button>
      <p class="feedback" role="status" aria-live="polite">
        {done}
      </p>
      <ConfirmDialog
        open={open}
        id="cancel-event"
        title={t('views.event.cancelTitle', { title: data.event.title })}
        confirmLabel={t('views.event.cancelConfirm')}
        danger
        onConfirm={async () => {
          await client.call('cancel_event', { id: data.event.id, ...(reason.trim() ? { reason: reason.trim() } : {}) });
          return t('views.event.cancelDone', { title: data.event.title });
        }}
        onClose={(ok, message) => {
          setOpen(false);
          if (ok) {
            setDone(message);
            onDone();
          }
        }}
      >
        <p>{t('views.event.cancelSold', { count: sold, tickets: count(sold), amount: net })}</p>
        <p>{t('views.event.cancelHeld', { count: held })}</p>
        <TextField
          id="cancel-reason"
          label={t('views.event.cancelReason')}
          hint={t('views.event.cancelReasonHint')}
          maxLength={500}
          value={reason}
          onValue={setReason}
        />
      </ConfirmDialog>
    </>
  );
}

export const eventView: ViewDef = {
  id: 'event',
  path: '/console/shops/:shopId/events/:eventId',
  title: 'views.event.title',
  component: EventPage,
  nav: false,
};
