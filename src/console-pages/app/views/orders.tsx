/**
 * Orders: search (e-mail, order id, ticket id), filter (event, state, date), sort and page the shop's orders; each
 * opens its page (./order.tsx). The state of the list lives in the URL's query, so a reload or a shared link keeps it.
 */
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import type { SearchOrdersInput } from '@tessera/sdk';
import { DataTable, type Sort } from '../kit/data-table.tsx';
import { EmptyState } from '../kit/empty-state.tsx';
import { SelectField, TextField } from '../kit/field.tsx';
import { count, money, when } from '../kit/format.ts';
import { Loaded, useLoad } from '../kit/load.tsx';
import { PageHeader } from '../kit/page-header.tsx';
import { t } from '../i18n.ts';
import { useSession } from '../session.tsx';
import { shopPath, type ViewDef, type ViewProps } from '../view.ts';
import { orderView } from './order.tsx';

const STATES = ['completed', 'partially_refunded', 'refunded'] as const;
const PAGE = 25;

/** The day after `date` (YYYY-MM-DD) at midnight in the browser's zone, as RFC 3339: the exclusive end of a range. */
const dayAfter = (date: string) => {
  const d = new Date(`${date}T00:00`);
  d.setDate(d.getDate() + 1);
  return d.toISOString();
};

/** The order's tier; an order of several tiers names each with its places (`2 × Adult, 1 × Child`). */
const tiersOf = (o: { tierName: string; lines?: { tierName: string; quantity: number }[] }) =>
  o.lines ? o.lines.map((l) => `${count(l.quantity)} × ${l.tierName}`).join(', ') : o.tierName;

function Orders({ shop, query }: ViewProps) {
  const { client } = useSession();
  const { route, path } = useLocation();
  const [q, setQ] = useState(query.q ?? '');
  const [eventId, setEventId] = useState(query.event ?? '');
  const [state, setState] = useState(query.state ?? '');
  const [from, setFrom] = useState(query.from ?? '');
  const [to, setTo] = useState(query.to ?? '');
  // Cursors of the pages before the current one (the first page has none).
  const [cursors, setCursors] = useState<string[]>([]);
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const sort: Sort = {
    key: query.sort === 'total' ? 'total' : 'created',
    dir: query.dir === 'asc' ? 'ascending' : 'descending',
  };

  const events = useLoad(async () => (await client.call('list_events', { id: shop!.id, limit: 100 })).events, [shop]);
  const orders = useLoad(() => {
    const input: SearchOrdersInput = {
      merchantId: shop!.id,
      limit: PAGE,
      sort: sort.key === 'total' ? 'total' : 'created',
      direction: sort.dir === 'ascending' ? 'asc' : 'desc',
      ...(query.q ? { q: query.q } : {}),
      ...(query.event ? { eventId: query.event } : {}),
      ...(STATES.includes(query.state as never) ? { state: query.state as (typeof STATES)[number] } : {}),
      ...(query.from ? { createdFrom: new Date(`${query.from}T00:00`).toISOString() } : {}),
      ...(query.to ? { createdBefore: dayAfter(query.to) } : {}),
      ...(cursor ? { cursor } : {}),
    };
    return client.call('search_orders', input);
  }, [client, shop, query.q, query.event, query.state, query.from, query.to, query.sort, query.dir, cursor]);

  /** Puts the search in the URL (a new search starts at the first page). */
  const search = (over: Record<string, string> = {}) => {
    const params = new URLSearchParams();
    const all = { q: q.trim(), event: eventId, state, from, to, sort: query.sort ?? '', dir: query.dir ?? '', ...over };
    for (const [k, v] of Object.entries(all)) if (v) params.set(k, v);
    setCursors([]);
    setCursor(undefined);
    route(`${path}${params.size ? `?${params}` : ''}`, true);
  };

  return (
    <>
      <PageHeader title={t('views.orders.title')} intro={t('views.orders.intro')} />
      <form
        role="search"
        aria-label={t('views.orders.searchLabel')}
        novalidate
        onSubmit={(e) => {
          e.preventDefault();
          search();
        }}
      >
        <div class="form-grid">
          <TextField
            id="order-q"
            type="search"
            label={t('views.orders.q')}
            hint={t('views.orders.qHint')}
            maxLength={200}
            value={q}
            onValue={setQ}
          />
          <SelectField
            id="order-event"
            label={t('views.orders.event')}
            value={eventId}
            onValue={setEventId}
            options={[['', t('views.orders.anyEvent')], ...(events.data ?? []).map((e) => [e.id, e.title] as const)]}
          />
          <SelectField
            id="order-state"
            label={t('views.orders.state')}
            value={state}
            onValue={setState}
            options={[
              ['', t('views.orders.anyState')],
              ...STATES.map((s) => [s, t(`views.orders.states.${s}`)] as const),
            ]}
          />
          <TextField id="order-from" type="date" label={t('views.orders.from')} value={from} onValue={setFrom} />
          <TextField id="order-to" type="date" label={t('views.orders.to')} value={to} onValue={setTo} />
        </div>
        <div class="actions">
          <button type="submit">{t('views.orders.search')}</button>
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setQ('');
              setEventId('');
              setState('');
              setFrom('');
              setTo('');
              search({ q: '', event: '', state: '', from: '', to: '' });
            }}
          >
            {t('views.orders.clear')}
          </button>
        </div>
      </form>
      <Loaded of={orders}>
        {(page) => (
          <DataTable
            caption={t('views.orders.caption')}
            rows={page.orders}
            rowKey={(o) => o.id}
            empty={
              <EmptyState>
                {query.q || query.event || query.state || query.from || query.to
                  ? t('views.orders.noMatch')
                  : t('views.orders.none')}
              </EmptyState>
            }
            serverSort={{
              sort,
              onSort: (next) =>
                search({ sort: next.key === 'total' ? 'total' : '', dir: next.dir === 'ascending' ? 'asc' : '' }),
            }}
            pager={{
              page: cursors.length,
              hasPrevious: cursors.length > 0,
              hasNext: !!page.nextCursor,
              onPrevious: () => {
                const back = cursors.slice(0, -1);
                setCursor(cursors[cursors.length - 1] || undefined);
                setCursors(back);
              },
              onNext: () => {
                setCursors([...cursors, cursor ?? '']);
                setCursor(page.nextCursor);
              },
            }}
            columns={[
              {
                key: 'created',
                label: t('views.orders.colCreated'),
                sortBy: (o) => o.createdAt,
                render: (o) => when(o.createdAt),
              },
              {
                key: 'id',
                label: t('views.orders.colId'),
                render: (o) => (
                  <a href={shopPath(shop!.id, 'orders', o.id)}>
                    <code>{o.id}</code>
                  </a>
                ),
              },
              {
                key: 'buyer',
                label: t('views.orders.colBuyer'),
                render: (o) => o.buyer?.email ?? t('views.orders.noBuyer'),
              },
              { key: 'event', label: t('views.orders.colEvent'), render: (o) => `${o.eventTitle} · ${tiersOf(o)}` },
              { key: 'quantity', label: t('views.orders.colTickets'), numeric: true, render: (o) => count(o.quantity) },
              {
                key: 'total',
                label: t('views.orders.colTotal'),
                numeric: true,
                sortBy: (o) => o.totalMinor,
                render: (o) => money(o.totalMinor, o.currency),
              },
              { key: 'state', label: t('views.orders.colState'), render: (o) => t(`views.orders.states.${o.state}`) },
            ]}
          />
        )}
      </Loaded>
    </>
  );
}

export const ordersView: ViewDef = {
  id: 'orders',
  path: '/console/shops/:shopId/orders',
  title: 'views.orders.title',
  component: Orders,
  nav: 'shop',
};
export { orderView };
