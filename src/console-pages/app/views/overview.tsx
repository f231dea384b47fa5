/**
 * Overview: per event of the shop, places sold / held / available per pool, revenue, a chart of tickets sold over
 * the chosen period (with the numbers as a table) and check-ins, from get_sales_overview.
 */
import { useRef, useState } from 'preact/hooks';
import type { GetSalesOverviewOutput } from '@tessera/sdk';
import { Chart } from '../kit/chart.tsx';
import { DataTable } from '../kit/data-table.tsx';
import { EmptyState } from '../kit/empty-state.tsx';
import { SelectField } from '../kit/field.tsx';
import { count, money, when } from '../kit/format.ts';
import { Loaded, useLoad } from '../kit/load.tsx';
import { PageHeader } from '../kit/page-header.tsx';
import { t } from '../i18n.ts';
import { useSession } from '../session.tsx';
import { shopPath, type ViewDef, type ViewProps } from '../view.ts';

type EventStats = GetSalesOverviewOutput['events'][number];
const PERIODS = {
  '48h': { hours: 48, bucket: 'hour' },
  '7d': { hours: 168, bucket: 'day' },
  '30d': { hours: 720, bucket: 'day' },
} as const;
type Period = keyof typeof PERIODS;

function Overview({ shop }: ViewProps) {
  const { client } = useSession();
  const [period, setPeriod] = useState<Period>('30d');
  // The periods end at the server's now (its clock decides what "the last 30 days" are): the first answer, for the
  // default period, says what that is.
  const skew = useRef(0);
  const overview = useLoad(async () => {
    if (period === '30d') {
      const o = await client.call('get_sales_overview', { merchantId: shop!.id });
      skew.current = Date.parse(o.to) - Date.now();
      return o;
    }
    const { hours, bucket } = PERIODS[period];
    const to = new Date(Date.now() + skew.current);
    const from = new Date(to.getTime() - hours * 3_600_000);
    return client.call('get_sales_overview', {
      merchantId: shop!.id,
      from: from.toISOString(),
      to: to.toISOString(),
      bucket,
    });
  }, [client, shop, period]);
  return (
    <>
      <PageHeader title={t('views.overview.title')} intro={t('views.overview.intro', { shop: shop!.name })} />
      <SelectField
        id="overview-period"
        label={t('views.overview.period')}
        value={period}
        onValue={(v) => setPeriod(v as Period)}
        options={(Object.keys(PERIODS) as Period[]).map((k) => [k, t(`views.overview.periods.${k}`)] as const)}
      />
      <Loaded of={overview}>
        {(o) =>
          o.events.length ? (
            o.events.map((e) => <EventPanel key={e.eventId} shopId={shop!.id} e={e} bucket={o.bucket} />)
          ) : (
            <EmptyState action={<a href={shopPath(shop!.id, 'events')}>{t('views.overview.createEvent')}</a>}>
              {t('views.overview.none')}
            </EmptyState>
          )
        }
      </Loaded>
    </>
  );
}

function EventPanel({ shopId, e, bucket }: { shopId: string; e: EventStats; bucket: 'hour' | 'day' }) {
  const sum = (k: 'sold' | 'held' | 'available' | 'capacity') => e.pools.reduce((n, p) => n + p[k], 0);
  const tickets = e.sales.reduce((n, s) => n + s.tickets, 0);
  const peak = e.sales.reduce<(typeof e.sales)[number] | undefined>(
    (best, s) => (!best || s.tickets > best.tickets ? s : best),
    undefined,
  );
  const fmtBucket = (iso: string) =>
    bucket === 'hour'
      ? when(iso)
      : new Date(iso).toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' });
  const headingId = `event-${e.eventId}`;
  return (
    <section class="panel-section" aria-labelledby={headingId}>
      <h2 id={headingId}>
        <a href={shopPath(shopId, 'events', e.eventId)}>{e.title}</a>
        {e.cancelled ? ` · ${t('views.events.cancelled')}` : ''}
      </h2>
      <p class="muted">{when(e.startsAt)}</p>
      <dl class="stats">
        <Stat label={t('views.pools.sold')} value={count(sum('sold'))} />
        <Stat label={t('views.pools.held')} value={count(sum('held'))} />
        <Stat label={t('views.pools.available')} value={count(sum('available'))} />
        <Stat label={t('views.overview.net')} value={money(e.revenue.netMinor, e.revenue.currency)} />
        <Stat label={t('views.overview.refunded')} value={money(e.revenue.refundedMinor, e.revenue.currency)} />
        <Stat
          label={t('views.overview.checkIns')}
          value={t('views.overview.checkInsOf', {
            checkedIn: count(e.checkIns.checkedIn),
            valid: count(e.checkIns.valid),
          })}
        />
      </dl>
      <DataTable
        caption={t('views.overview.poolsCaption', { title: e.title })}
        rows={e.pools}
        rowKey={(p) => p.poolId}
        empty={<EmptyState>{t('views.pools.none')}</EmptyState>}
        columns={[
          {
            key: 'title',
            label: t('views.pools.name'),
            sortBy: (p) => p.title ?? '',
            render: (p) => p.title ?? p.poolId,
          },
          {
            key: 'capacity',
            label: t('views.pools.capacity'),
            numeric: true,
            sortBy: (p) => p.capacity,
            render: (p) => count(p.capacity),
          },
          {
            key: 'sold',
            label: t('views.pools.sold'),
            numeric: true,
            sortBy: (p) => p.sold,
            render: (p) => count(p.sold),
          },
          {
            key: 'held',
            label: t('views.pools.held'),
            numeric: true,
            sortBy: (p) => p.held,
            render: (p) => count(p.held),
          },
          {
            key: 'available',
            label: t('views.pools.available'),
            numeric: true,
            sortBy: (p) => p.available,
            render: (p) => count(p.available),
          },
        ]}
      />
      <h3>{t('views.overview.salesTitle')}</h3>
      <Chart
        label={t('views.overview.chartLabel', {
          count: tickets,
          tickets: count(tickets),
          peak: peak && peak.tickets ? fmtBucket(peak.start) : '—',
        })}
        series={t('views.overview.ticketsSold')}
        bucket={bucket}
        points={e.sales.map((s) => ({ at: s.start, value: s.tickets }))}
      />
      <details>
        <summary>{t('views.overview.showNumbers')}</summary>
        <DataTable
          caption={t('views.overview.salesCaption', { title: e.title })}
          rows={e.sales.filter((s) => s.orders > 0)}
          rowKey={(s) => s.start}
          empty={<EmptyState>{t('views.overview.noSales')}</EmptyState>}
          columns={[
            {
              key: 'start',
              label: bucket === 'hour' ? t('views.overview.hour') : t('views.overview.day'),
              sortBy: (s) => s.start,
              render: (s) => fmtBucket(s.start),
            },
            {
              key: 'orders',
              label: t('views.overview.orders'),
              numeric: true,
              sortBy: (s) => s.orders,
              render: (s) => count(s.orders),
            },
            {
              key: 'tickets',
              label: t('views.overview.ticketsSold'),
              numeric: true,
              sortBy: (s) => s.tickets,
              render: (s) => count(s.tickets),
            },
            {
              key: 'gross',
              label: t('views.overview.gross'),
              numeric: true,
              sortBy: (s) => s.grossMinor,
              render: (s) => money(s.grossMinor, e.revenue.currency),
            },
          ]}
        />
      </details>
    </section>
  );
}

function Stat(p: { label: string; value: string }) {
  return (
    <div>
      <dt>{p.label}</dt>
      <dd>{p.value}</dd>
    </div>
  );
}

export const overviewView: ViewDef = {
  id: 'overview',
  path: '/console/shops/:shopId/overview',
  title: 'views.overview.title',
  component: Overview,
  nav: 'shop',
};
