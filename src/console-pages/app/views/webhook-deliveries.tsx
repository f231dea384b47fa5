/**
 * One webhook's page: its deliveries, newest first, paged by the server; each shows the request sent (method, URL,
 * headers, the body as sent) and the response recorded (status or error), and a settled one can be redelivered.
 */
import { useState } from 'preact/hooks';
import type { GetWebhookDeliveryOutput, ListWebhookDeliveriesOutput } from '@tessera/sdk';
import { useCursorPages } from '../kit/cursor-pages.ts';
import { DataTable, type Column } from '../kit/data-table.tsx';
import { EmptyState } from '../kit/empty-state.tsx';
import { Feedback, useAction } from '../kit/feedback.tsx';
import { when } from '../kit/format.ts';
import { Loaded, useLoad } from '../kit/load.tsx';
import { PageHeader } from '../kit/page-header.tsx';
import { t } from '../i18n.ts';
import { useSession } from '../session.tsx';
import { shopPath, type ViewProps } from '../view.ts';

type Delivery = ListWebhookDeliveriesOutput['deliveries'][number];
const PAGE = 20;

/** The JSON body indented for reading (as sent when it is not JSON). */
function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

export function WebhookDeliveries({ shop, params }: ViewProps) {
  const { client } = useSession();
  const id = params.webhookId!;
  const pages = useCursorPages();
  const hook = useLoad(
    async () => (await client.call('list_webhooks', { merchantId: shop!.id })).webhooks.find((w) => w.id === id),
    [client, shop?.id, id],
  );
  const log = useLoad(
    () => client.call('list_webhook_deliveries', { id, limit: PAGE, ...pages.cursor }),
    [client, id, pages.page],
  );
  const [open, setOpen] = useState<GetWebhookDeliveryOutput | null>(null);
  const show = useAction();
  const redeliver = useAction();
  if (!shop) return null;
  const columns: Column<Delivery>[] = [
    { key: 'type', label: t('views.webhook.type'), render: (d) => <code>{d.type}</code>, sortBy: (d) => d.type },
    { key: 'status', label: t('views.webhook.status'), render: (d) => t(`views.webhook.statuses.${d.status}`) },
    { key: 'attempts', label: t('views.webhook.attempts'), render: (d) => String(d.attempts), numeric: true },
    {
      key: 'answer',
      label: t('views.webhook.lastAnswer'),
      render: (d) =>
        d.lastHttpStatus !== null ? `HTTP ${d.lastHttpStatus}` : (d.lastError ?? t('views.webhook.noAnswer')),
    },
    { key: 'next', label: t('views.webhook.nextAttempt'), render: (d) => when(d.nextAttemptAt) },
    {
      key: 'created',
      label: t('views.webhook.createdAt'),
      render: (d) => when(d.createdAt),
      sortBy: (d) => d.createdAt,
    },
    {
      key: 'actions',
      label: t('views.webhook.actions'),
      hiddenLabel: true,
      render: (d) => (
        <div class="row-actions">
          <button
            type="button"
            class="secondary"
            aria-describedby="delivery-show-feedback"
            onClick={() =>
              void show.run(async () => {
                setOpen(await client.call('get_webhook_delivery', { id, deliveryId: d.id }));
                requestAnimationFrame(() => document.getElementById('delivery-detail-title')?.focus());
              })
            }
          >
            {t('views.webhook.show', { id: d.id })}
          </button>
          {d.status !== 'pending' ? (
            <button
              type="button"
              class="secondary"
              aria-describedby="delivery-redeliver-feedback"
              onClick={() =>
                void redeliver.run(async () => {
                  await client.call('redeliver_webhook_delivery', { id, deliveryId: d.id });
                  await log.reload();
                  return t('views.webhook.redelivered', { id: d.id });
                })
              }
            >
              {t('views.webhook.redeliver', { id: d.id })}
            </button>
          ) : null}
        </div>
      ),
    },
  ];
  const url = hook.data?.url ?? id;
  return (
    <>
      <PageHeader
        title={t('views.webhook.heading', { url })}
        actions={<a href={shopPath(shop.id, 'webhooks')}>{t('views.webhook.back')}</a>}
      />
      <Feedback of={show} id="delivery-show-feedback" />
      <Feedback of={redeliver} id="delivery-redeliver-feedback" />
      <Loaded of={log}>
        {(d) => (
          <DataTable
            caption={t('views.webhook.caption', { url })}
            columns={columns}
            rows={d.deliveries}
            rowKey={(x) => x.id}
            empty={<EmptyState>{t('views.webhook.empty')}</EmptyState>}
            pager={pages.pager(d.nextCursor)}
          />
        )}
      </Loaded>
      {open ? <DeliveryDetail detail={open} /> : null}
    </>
  );
}

function DeliveryDetail({ detail }: { detail: GetWebhookDeliveryOutput }) {
  const { request, response, delivery } = detail;
  return (
    <section class="delivery-detail" aria-labelledby="delivery-detail-title">
      <h2 id="delivery-detail-title" tabindex={-1}>
        {t('views.webhook.detailTitle', { id: delivery.id, type: delivery.type })}
      </h2>
      <h3>{t('views.webhook.request')}</h3>
      <p>
        <code>
          {request.method} {request.url}
        </code>
      </p>
      <dl class="pairs">
        {Object.entries(request.headers).map(([name, value]) => (
          <div key={name}>
            <dt>
              <code>{name}</code>
            </dt>
            <dd>
              <code>{value}</code>
            </dd>
          </div>
        ))}
      </dl>
      <pre class="code-block" tabindex={0} aria-label={t('views.webhook.body')}>
        {pretty(request.body)}
      </pre>
      <p class="hint">{t('views.webhook.requestNote')}</p>
      <h3>{t('views.webhook.response')}</h3>
      <p>
        {response.status !== null
          ? t('views.webhook.responseStatus', { status: response.status, at: when(response.at) })
          : response.error
            ? t('views.webhook.responseError', { error: response.error, at: when(response.at) })
            : t('views.webhook.noAnswer')}
      </p>
      <p class="hint">{t('views.webhook.responseNote')}</p>
    </section>
  );
}
