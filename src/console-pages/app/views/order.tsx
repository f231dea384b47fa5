/**
 * An order's page: buyer, event, tickets (with check-ins), payments, refunds and the e-mails sent; refunding all or
 * some tickets with the amount shown before confirming; sending the tickets e-mail again.
 */
import type { GetOrderDetailOutput } from '@tessera/sdk';
import { DataTable } from '../kit/data-table.tsx';
import { EmptyState } from '../kit/empty-state.tsx';
import { Feedback, useAction } from '../kit/feedback.tsx';
import { money, when } from '../kit/format.ts';
import { Loaded, useLoad } from '../kit/load.tsx';
import { PageHeader } from '../kit/page-header.tsx';
import { t } from '../i18n.ts';
import { useSession } from '../session.tsx';
import { shopPath, type ViewDef, type ViewProps } from '../view.ts';
import { TicketDownloads } from './order-downloads.tsx';
import { OrderInvoices } from './order-invoices.tsx';
import { Refund } from './order-refund.tsx';

type Detail = GetOrderDetailOutput;

function OrderPage({ params, shop }: ViewProps) {
  const { client } = useSession();
  const detail = useLoad(() => client.call('get_order_detail', { id: params.orderId! }), [client, params.orderId]);
  const d = detail.data;
  return (
    <>
      <PageHeader
        title={t('views.order.heading', { id: params.orderId })}
        intro={
          d
            ? t('views.order.summary', { event: d.event.title, tier: d.tier.name, when: when(d.order.createdAt) })
            : undefined
        }
      />
      <p>
        <a href={shopPath(shop!.id, 'orders')}>{t('views.order.back')}</a>
      </p>
      <Loaded of={detail}>{(data) => <OrderBody d={data} reload={detail.reload} />}</Loaded>
    </>
  );
}

function OrderBody({ d, reload }: { d: Detail; reload: () => Promise<void> }) {
  const o = d.order;
  const checkIn = (ticketId: string) => d.checkIns.find((c) => c.ticketId === ticketId);
  const tierName = (id: string) => d.tiers?.find((x) => x.id === id)?.name ?? id;
  return (
    <>
      <dl class="stats">
        <div>
          <dt>{t('views.order.buyer')}</dt>
          <dd class="small">
            {d.buyer ? `${d.buyer.name ? `${d.buyer.name} · ` : ''}${d.buyer.email}` : t('views.orders.noBuyer')}
          </dd>
        </div>
        <div>
          <dt>{t('views.order.total')}</dt>
          <dd>{money(o.totalMinor, o.currency)}</dd>
        </div>
        <div>
          <dt>{t('views.order.refunded')}</dt>
          <dd>{money(o.refundedMinor, o.currency)}</dd>
        </div>
        <div>
          <dt>{t('views.order.state')}</dt>
          <dd class="small">{t(`views.orders.states.${o.state}`)}</dd>
        </div>
      </dl>
      <DataTable
        caption={t('views.order.tickets')}
        rows={o.tickets}
        rowKey={(x) => x.id}
        empty={<EmptyState>{t('views.order.noTickets')}</EmptyState>}
        columns={[
          { key: 'id', label: t('views.order.ticket'), render: (x) => <code>{x.id}</code> },
          // Each ticket's tier, when the order has several (a multi-line purchase).
          ...(d.tiers
            ? [
                {
                  key: 'tier',
                  label: t('views.order.ticketTier'),
                  render: (x: { tierId: string }) => tierName(x.tierId),
                },
              ]
            : []),
          // The attendee and their answers (docs/attendees.md), when the purchase gave them.
          { key: 'attendee', label: t('views.order.attendee'), render: (x) => attendeeText(x) },
          {
            key: 'state',
            label: t('views.order.ticketState'),
            sortBy: (x) => x.state,
            render: (x) => t(`views.order.ticketStates.${x.state}`),
          },
          {
            key: 'checkedIn',
            label: t('views.order.checkedIn'),
            render: (x) => {
              const c = checkIn(x.id);
              return c ? when(c.checkedInAt) : x.checkedInAt ? when(x.checkedInAt) : t('views.order.notCheckedIn');
            },
          },
        ]}
      />
      <DataTable
        caption={t('views.order.payments')}
        rows={o.payments}
        rowKey={(x) => x.id}
        empty={<EmptyState>{t('views.order.noPayments')}</EmptyState>}
        columns={[
          { key: 'id', label: t('views.order.payment'), render: (x) => <code>{x.id}</code> },
          {
            key: 'amount',
            label: t('views.order.amount'),
            numeric: true,
            render: (x) => money(x.amountMinor, x.currency),
          },
          { key: 'method', label: t('views.order.method'), render: (x) => `${x.provider} · ${x.scheme}` },
          { key: 'state', label: t('views.order.paymentState'), render: (x) => x.state },
          { key: 'when', label: t('views.order.when'), render: (x) => when(x.createdAt) },
        ]}
      />
      <DataTable
        caption={t('views.order.refunds')}
        rows={o.refunds}
        rowKey={(x) => x.id}
        empty={<EmptyState>{t('views.order.noRefunds')}</EmptyState>}
        columns={[
          { key: 'when', label: t('views.order.when'), render: (x) => when(x.createdAt) },
          {
            key: 'amount',
            label: t('views.order.amount'),
            numeric: true,
            render: (x) => money(x.amountMinor, x.currency),
          },
          { key: 'tickets', label: t('views.order.tickets'), render: (x) => x.ticketIds.length },
          { key: 'reason', label: t('views.order.reason'), render: (x) => x.reason },
          { key: 'state', label: t('views.order.refundState'), render: (x) => x.state },
        ]}
      />
      <DataTable
        caption={t('views.order.emails')}
        rows={d.emails}
        rowKey={(x) => x.id}
        empty={<EmptyState>{t('views.order.noEmails')}</EmptyState>}
        columns={[
          { key: 'kind', label: t('views.order.emailKind'), render: (x) => t(`views.order.emailKinds.${x.kind}`) },
          { key: 'to', label: t('views.order.emailTo'), render: (x) => x.to ?? '' },
          { key: 'state', label: t('views.order.emailState'), render: (x) => t(`views.order.emailStates.${x.state}`) },
          { key: 'when', label: t('views.order.when'), render: (x) => when(x.sentAt ?? x.createdAt) },
        ]}
      />
      <Refund d={d} reload={reload} />
      <Resend d={d} reload={reload} />
      <TicketDownloads d={d} />
      <OrderInvoices d={d} />
    </>
  );
}

/** A ticket's attendee as one line: the name, then each answer (`diet: vegan`); empty when none was given. */
function attendeeText(x: { attendeeName?: string; answers?: Record<string, string | boolean | string[] | undefined> }) {
  const value = (v: string | boolean | string[]) =>
    Array.isArray(v) ? v.join(', ') : typeof v === 'boolean' ? t(v ? 'views.order.yes' : 'views.order.no') : v;
  const answers = Object.entries(x.answers ?? {}).flatMap(([id, v]) => (v === undefined ? [] : [`${id}: ${value(v)}`]));
  return [x.attendeeName, ...answers].filter(Boolean).join(' · ') || '—';
}

/** Sends the tickets e-mail again to the buyer's address. */
function Resend({ d, reload }: { d: Detail; reload: () => Promise<void> }) {
  const { client, isOwner } = useSession();
  const send = useAction();
  if (!isOwner || !d.buyer || d.order.state === 'refunded') return null;
  return (
    <section class="panel-section" aria-labelledby="resend-title">
      <h2 id="resend-title">{t('views.resend.title')}</h2>
      <p>{t('views.resend.intro', { email: d.buyer.email })}</p>
      <div class="actions">
        <button
          type="button"
          class="secondary"
          aria-busy={send.busy ? 'true' : undefined}
          onClick={() =>
            void send.run(async () => {
              const r = await client.call('resend_order_email', { id: d.order.id });
              void reload();
              return t('views.resend.done', { email: r.to });
            })
          }
        >
          {t('views.resend.button')}
        </button>
        <Feedback of={send} />
      </div>
    </section>
  );
}

export const orderView: ViewDef = {
  id: 'order',
  path: '/console/shops/:shopId/orders/:orderId',
  title: 'views.order.title',
  component: OrderPage,
  nav: false,
};
