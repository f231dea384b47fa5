/**
 * Webhooks: a shop's subscriptions; subscribe an endpoint (its signing secret shown once), send a test event, delete
 * with confirmation; each webhook's page lists its deliveries, each with the request sent and the response recorded,
 * and redelivers a settled one.
 */
import { useState } from 'preact/hooks';
import type { CreateWebhookInput, ListWebhooksOutput } from '@tessera/sdk';
import { fieldOf } from '../api.ts';
import { ChoiceGroup } from '../kit/choice-group.tsx';
import { ConfirmDialog } from '../kit/confirm-dialog.tsx';
import { DataTable, type Column } from '../kit/data-table.tsx';
import { EmptyState } from '../kit/empty-state.tsx';
import { Feedback, useAction } from '../kit/feedback.tsx';
import { TextField } from '../kit/field.tsx';
import { when } from '../kit/format.ts';
import { Loaded, useLoad } from '../kit/load.tsx';
import { PageHeader } from '../kit/page-header.tsx';
import { SecretOnce } from '../kit/secret-once.tsx';
import { t } from '../i18n.ts';
import { useSession } from '../session.tsx';
import { shopPath, type ViewDef, type ViewProps } from '../view.ts';
import { WebhookDeliveries } from './webhook-deliveries.tsx';

type EventType = CreateWebhookInput['events'][number];
type Webhook = ListWebhooksOutput['webhooks'][number];

/** Every event type a subscription may choose (a Record, so the compiler checks the list against the API's). */
const EVENT_TYPES = Object.keys({
  'order.completed': 1,
  'order.pending': 1,
  'order.refunded': 1,
  'reservation.released': 1,
  'reservation.expired': 1,
  'payment.failed': 1,
  'event.updated': 1,
  'event.cancelled': 1,
  'tier.updated': 1,
  'tier.retired': 1,
  'pool.updated': 1,
  'ticket.voided': 1,
  'refund.failed': 1,
  'ticket.checked_in': 1,
} satisfies Record<EventType, 1>) as EventType[];

function Webhooks({ shop }: ViewProps) {
  const { client } = useSession();
  const hooks = useLoad(() => client.call('list_webhooks', { merchantId: shop!.id }), [client, shop?.id]);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const test = useAction();
  const [note, setNote] = useState('');
  if (!shop) return null;
  const columns: Column<Webhook>[] = [
    {
      key: 'url',
      label: t('views.webhooks.url'),
      render: (w) => <a href={shopPath(shop.id, 'webhooks', w.id)}>{w.url}</a>,
      sortBy: (w) => w.url,
    },
    { key: 'events', label: t('views.webhooks.events'), render: (w) => w.events.join(', ') },
    {
      key: 'created',
      label: t('views.webhooks.createdAt'),
      render: (w) => when(w.createdAt),
      sortBy: (w) => w.createdAt,
    },
    {
      key: 'actions',
      label: t('views.webhooks.actions'),
      hiddenLabel: true,
      render: (w) => (
        <div class="row-actions">
          <button
            type="button"
            class="secondary"
            aria-describedby="webhook-test-feedback"
            onClick={() =>
              void test.run(async () => {
                await client.call('send_test_webhook_event', { id: w.id });
                return t('views.webhooks.testQueued', { url: w.url });
              })
            }
          >
            {t('views.webhooks.test', { url: w.url })}
          </button>
          <button type="button" class="danger" onClick={() => setDeleting(w)}>
            {t('views.webhooks.delete', { url: w.url })}
          </button>
        </div>
      ),
    },
  ];
  return (
    <>
      <PageHeader title={t('views.webhooks.title')} intro={t('views.webhooks.intro', { shop: shop.name })} />
      <section aria-labelledby="webhooks-list">
        <h2 id="webhooks-list">{t('views.webhooks.listTitle')}</h2>
        <Feedback of={test} id="webhook-test-feedback" />
        <p role="status" aria-live="polite" class="feedback">
          {note}
        </p>
        <Loaded of={hooks}>
          {(d) => (
            <DataTable
              caption={t('views.webhooks.caption', { shop: shop.name })}
              columns={columns}
              rows={d.webhooks}
              rowKey={(w) => w.id}
              empty={<EmptyState>{t('views.webhooks.empty')}</EmptyState>}
            />
          )}
        </Loaded>
      </section>
      <Subscribe shopId={shop.id} onCreated={hooks.reload} />
      <ConfirmDialog
        open={deleting !== null}
        id="delete-webhook"
        title={t('views.webhooks.deleteTitle', { url: deleting?.url ?? '' })}
        confirmLabel={t('views.webhooks.deleteConfirm')}
        danger
        onConfirm={async () => {
          const out = await client.call('delete_webhook', { id: deleting!.id });
          return t('views.webhooks.deleted', { url: deleting!.url, count: out.cancelledDeliveries });
        }}
        onClose={(done, message) => {
          setDeleting(null);
          if (done) {
            setNote(message);
            void hooks.reload();
          }
        }}
      >
        <p>{t('views.webhooks.deleteWhat')}</p>
      </ConfirmDialog>
    </>
  );
}

function Subscribe(props: { shopId: string; onCreated: () => Promise<void> }) {
  const { client } = useSession();
  const action = useAction();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const [errors, setErrors] = useState<{ url?: string; events?: string }>({});
  const [created, setCreated] = useState<{ url: string; secret: string } | null>(null);
  const submit = (e: Event) => {
    e.preventDefault();
    const problems = {
      ...(url.trim() ? {} : { url: t('views.webhooks.urlRequired') }),
      ...(events.length ? {} : { events: t('views.webhooks.eventsRequired') }),
    };
    setErrors(problems);
    if (problems.url || problems.events) {
      document.getElementById(problems.url ? 'webhook-url' : 'webhook-events-0')?.focus();
      return;
    }
    void action.run(async () => {
      try {
        const w = await client.call('create_webhook', {
          merchantId: props.shopId,
          url: url.trim(),
          events: events as CreateWebhookInput['events'],
        });
        setCreated({ url: w.url, secret: w.secret });
        setUrl('');
        setEvents([]);
        await props.onCreated();
        return t('views.webhooks.createdOk', { url: w.url });
      } catch (err) {
        const field = fieldOf(err, { url: 'webhook-url', events: 'webhook-events' });
        if (field === 'webhook-url') setErrors({ url: t('views.webhooks.urlRefused') });
        if (field === 'webhook-events') setErrors({ events: t('views.webhooks.eventsRequired') });
        throw err;
      }
    });
  };
  return (
    <section aria-labelledby="webhook-create">
      <h2 id="webhook-create">{t('views.webhooks.createTitle')}</h2>
      <form noValidate onSubmit={submit}>
        <TextField
          id="webhook-url"
          type="url"
          label={t('views.webhooks.url')}
          hint={t('views.webhooks.urlHint')}
          value={url}
          onValue={setUrl}
          error={errors.url}
          maxLength={2048}
          autoComplete="off"
        />
        <ChoiceGroup
          id="webhook-events"
          legend={t('views.webhooks.events')}
          error={errors.events}
          choices={EVENT_TYPES.map((type) => ({ value: type, label: <code>{type}</code> }))}
          selected={events}
          onSelected={setEvents}
        />
        <button type="submit" class="primary" aria-describedby="webhook-create-feedback">
          {t('views.webhooks.create')}
        </button>
        <Feedback of={action} id="webhook-create-feedback" />
      </form>
      {created ? (
        <SecretOnce
          id="new-webhook"
          title={t('views.webhooks.secretOf', { url: created.url })}
          secret={created.secret}
        />
      ) : null}
    </section>
  );
}

export const webhooksView: ViewDef = {
  id: 'webhooks',
  path: '/console/shops/:shopId/webhooks',
  title: 'views.webhooks.title',
  component: Webhooks,
  nav: 'shop',
};
export const webhookView: ViewDef = {
  id: 'webhook',
  path: '/console/shops/:shopId/webhooks/:webhookId',
  title: 'views.webhook.title',
  component: WebhookDeliveries,
  nav: false,
};
