/**
 * Waiting lists: per event, who waits for which tier in line order, each entry's state and offer (the places held for
 * them, until when), and an owner's removing an entry (an open offer's places pass to the next in line).
 */
import { useState } from 'preact/hooks';
import type { ListWaitingListOutput } from '@tessera/sdk';
import { DataTable, type Column } from '../kit/data-table.tsx';
import { EmptyState } from '../kit/empty-state.tsx';
import { Feedback, useAction } from '../kit/feedback.tsx';
import { SelectField } from '../kit/field.tsx';
import { count, when } from '../kit/format.ts';
import { Loaded, useLoad } from '../kit/load.tsx';
import { PageHeader } from '../kit/page-header.tsx';
import { t } from '../i18n.ts';
import { useSession } from '../session.tsx';
import type { ViewDef, ViewProps } from '../view.ts';

type Entry = ListWaitingListOutput['entries'][number];

function WaitingList({ shop }: ViewProps) {
  const { client, isOwner } = useSession();
  const events = useLoad(
    async () => (await client.call('list_events', { id: shop!.id, limit: 100 })).events,
    [client, shop?.id],
  );
  const [picked, setPicked] = useState('');
  const eventId = picked || events.data?.[0]?.id || '';
  const tiers = useLoad(
    async () => (eventId ? (await client.call('get_event', { id: eventId })).tiers : []),
    [client, eventId],
  );
  const entries = useLoad(
    async () => (eventId ? (await client.call('list_waiting_list', { eventId, limit: 100 })).entries : []),
    [client, eventId],
  );
  const remove = useAction();
  if (!shop) return null;
  const tierName = (id: string) => tiers.data?.find((x) => x.id === id)?.name ?? id;
  const columns: Column<Entry>[] = [
    {
      key: 'position',
      label: t('views.waitingList.position'),
      render: (e) => (e.position ? count(e.position) : '—'),
      numeric: true,
    },
    { key: 'email', label: t('views.waitingList.person'), render: (e) => e.email ?? '—' },
    { key: 'tier', label: t('views.waitingList.tier'), render: (e) => tierName(e.tierId) },
    { key: 'quantity', label: t('views.waitingList.quantity'), render: (e) => count(e.quantity), numeric: true },
    {
      key: 'state',
      label: t('views.waitingList.state'),
      render: (e) =>
        e.offer && e.state === 'offered'
          ? t('views.waitingList.offeredUntil', { until: when(e.offer.expiresAt) })
          : t(`views.waitingList.states.${e.state}`),
    },
    { key: 'joined', label: t('views.waitingList.joined'), render: (e) => when(e.joinedAt) },
    {
      key: 'actions',
      label: t('views.waitingList.actions'),
      hiddenLabel: true,
      // Removing is an owner's act (an integrator sees the list without the button; the server refuses it anyway).
      render: (e) =>
        isOwner && (e.state === 'waiting' || e.state === 'offered') ? (
          <button
            type="button"
            class="secondary"
            aria-describedby="waiting-list-feedback"
            onClick={() =>
              void remove.run(async () => {
                await client.call('remove_waiting_list_entry', { id: e.id });
                await entries.reload();
                return t('views.waitingList.removed', { person: e.email ?? e.id });
              })
            }
          >
            {t('views.waitingList.remove', { person: e.email ?? e.id })}
          </button>
        ) : null,
    },
  ];
  return (
    <>
      <PageHeader title={t('views.waitingList.title')} intro={t('views.waitingList.intro')} />
      <SelectField
        id="waiting-list-event"
        label={t('views.waitingList.event')}
        value={eventId}
        onValue={setPicked}
        options={(events.data ?? []).map((ev) => [ev.id, ev.title] as const)}
      />
      <Feedback of={remove} id="waiting-list-feedback" />
      <Loaded of={entries}>
        {(rows) => (
          <DataTable
            caption={t('views.waitingList.caption', { shop: shop.name })}
            columns={columns}
            rows={rows}
            rowKey={(e) => e.id}
            empty={<EmptyState>{t('views.waitingList.empty')}</EmptyState>}
          />
        )}
      </Loaded>
    </>
  );
}

export const waitingListView: ViewDef = {
  id: 'waiting-list',
  path: '/console/shops/:shopId/waiting-list',
  title: 'views.waitingList.title',
  component: WaitingList,
  nav: 'shop',
};
