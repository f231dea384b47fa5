/**
 * Check-in: live counts per event (tickets checked in out of the valid ones, refreshed every 15 seconds and on
 * demand) and, per event, the offline list a scanner downloads before the doors open.
 */
import { useEffect } from 'preact/hooks';
import type { GetSalesOverviewOutput } from '@tessera/sdk';
import { DataTable, type Column } from '../kit/data-table.tsx';
import { downloadText } from '../kit/download.ts';
import { EmptyState } from '../kit/empty-state.tsx';
import { Feedback, useAction } from '../kit/feedback.tsx';
import { count, when } from '../kit/format.ts';
import { Loaded, useLoad } from '../kit/load.tsx';
import { PageHeader } from '../kit/page-header.tsx';
import { t } from '../i18n.ts';
import { useSession } from '../session.tsx';
import type { ViewDef, ViewProps } from '../view.ts';

type EventCounts = GetSalesOverviewOutput['events'][number];
/** How often the counts refresh while the view is open. */
export const REFRESH_MS = 15_000;

function CheckIn({ shop }: ViewProps) {
  const { client } = useSession();
  const overview = useLoad(() => client.call('get_sales_overview', { merchantId: shop!.id }), [client, shop?.id]);
  const refresh = useAction();
  const download = useAction();
  useEffect(() => {
    const timer = setInterval(() => void overview.reload(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [overview.reload]);
  if (!shop) return null;
  const share = (e: EventCounts) =>
    e.checkIns.valid ? Math.round((e.checkIns.checkedIn / e.checkIns.valid) * 100) : 0;
  const columns: Column<EventCounts>[] = [
    { key: 'title', label: t('views.checkIn.event'), render: (e) => e.title, sortBy: (e) => e.title },
    { key: 'starts', label: t('views.checkIn.starts'), render: (e) => when(e.startsAt), sortBy: (e) => e.startsAt },
    {
      key: 'in',
      label: t('views.checkIn.checkedIn'),
      render: (e) =>
        t('views.checkIn.ofValid', { checkedIn: count(e.checkIns.checkedIn), valid: count(e.checkIns.valid) }),
      sortBy: (e) => e.checkIns.checkedIn,
      numeric: true,
    },
    { key: 'share', label: t('views.checkIn.share'), render: (e) => `${share(e)} %`, sortBy: share, numeric: true },
    {
      key: 'actions',
      label: t('views.checkIn.actions'),
      hiddenLabel: true,
      render: (e) => (
        <button
          type="button"
          class="secondary"
          aria-describedby="check-in-download-feedback"
          onClick={() =>
            void download.run(async () => {
              const list = await client.call('get_check_in_list', { id: e.eventId });
              downloadText(`check-in-${e.eventId}.json`, JSON.stringify(list, null, 2));
              return t('views.checkIn.downloaded', { title: e.title });
            })
          }
        >
          {t('views.checkIn.download', { title: e.title })}
        </button>
      ),
    },
  ];
  return (
    <>
      <PageHeader
        title={t('views.checkIn.title')}
        intro={t('views.checkIn.intro')}
        actions={
          <button
            type="button"
            class="secondary"
            aria-describedby="check-in-refresh-feedback"
            onClick={() =>
              void refresh.run(async () => {
                await overview.reload();
                return t('views.checkIn.refreshed');
              })
            }
          >
            {t('views.checkIn.refresh')}
          </button>
        }
      />
      <Feedback of={refresh} id="check-in-refresh-feedback" />
      <Feedback of={download} id="check-in-download-feedback" />
      <Loaded of={overview}>
        {(d) => (
          <DataTable
            caption={t('views.checkIn.caption', { shop: shop.name })}
            columns={columns}
            rows={d.events.filter((e) => !e.cancelled)}
            rowKey={(e) => e.eventId}
            empty={<EmptyState>{t('views.checkIn.empty')}</EmptyState>}
          />
        )}
      </Loaded>
    </>
  );
}

export const checkInView: ViewDef = {
  id: 'check-in',
  path: '/console/shops/:shopId/check-in',
  title: 'views.checkIn.title',
  component: CheckIn,
  nav: 'shop',
};
