/**
 * Events: the shop's events (sortable, paged), creating one, and the shop window (description, discoverable). The
 * writes are an owner's; an integrator sees the lists.
 */
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { FormProblems } from '../api.ts';
import { DataTable } from '../kit/data-table.tsx';
import { EmptyState } from '../kit/empty-state.tsx';
import { Feedback, useAction } from '../kit/feedback.tsx';
import { CheckboxField, TextAreaField, TextField } from '../kit/field.tsx';
import { useForm } from '../kit/form.ts';
import { when } from '../kit/format.ts';
import { Loaded, useLoad } from '../kit/load.tsx';
import { PageHeader } from '../kit/page-header.tsx';
import { t } from '../i18n.ts';
import { useSession, type Shop } from '../session.tsx';
import { shopPath, type ViewDef, type ViewProps } from '../view.ts';
import { eventView } from './event.tsx';
import { useEventFields } from './event-fields.tsx';

function Events({ shop }: ViewProps) {
  const { client, isOwner } = useSession();
  const events = useLoad(async () => (await client.call('list_events', { id: shop!.id, limit: 100 })).events, [shop]);
  return (
    <>
      <PageHeader title={t('views.events.title')} intro={t('views.events.intro', { shop: shop!.name })} />
      <Loaded of={events}>
        {(list) => (
          <DataTable
            caption={t('views.events.caption')}
            rows={list}
            rowKey={(e) => e.id}
            initialSort={{ key: 'startsAt', dir: 'ascending' }}
            empty={<EmptyState>{t('views.events.none')}</EmptyState>}
            columns={[
              {
                key: 'title',
                label: t('views.events.colTitle'),
                sortBy: (e) => e.title,
                render: (e) => <a href={shopPath(shop!.id, 'events', e.id)}>{e.title}</a>,
              },
              {
                key: 'startsAt',
                label: t('views.events.colStarts'),
                sortBy: (e) => e.startsAt,
                render: (e) => when(e.startsAt),
              },
              {
                key: 'venue',
                label: t('views.events.colVenue'),
                sortBy: (e) => e.venue ?? '',
                render: (e) => e.venue ?? '',
              },
              {
                key: 'state',
                label: t('views.events.colState'),
                sortBy: (e) => (e.cancelledAt ? 1 : 0),
                render: (e) => (e.cancelledAt ? t('views.events.cancelled') : t('views.events.active')),
              },
            ]}
          />
        )}
      </Loaded>
      {isOwner ? <CreateEvent shop={shop!} /> : null}
      <ShopWindow shop={shop!} />
    </>
  );
}

function CreateEvent({ shop }: { shop: Shop }) {
  const { client } = useSession();
  const { route } = useLocation();
  const { form, check, fields } = useEventFields('event', {
    title: '',
    venue: '',
    startsAt: '',
    endsAt: '',
    timeZone: '',
  });
  const create = useAction();
  return (
    <section class="panel-section" aria-labelledby="create-event-title">
      <h2 id="create-event-title">{t('views.events.create')}</h2>
      <form
        novalidate
        onSubmit={(e) => {
          e.preventDefault();
          void form.submit(create, async () => {
            const ev = check();
            const event = await client.call('create_event', {
              merchantId: shop.id,
              title: ev.title,
              startsAt: ev.starts,
              ...(ev.venue ? { venue: ev.venue } : {}),
              ...(ev.ends ? { endsAt: ev.ends } : {}),
              ...(ev.timeZone ? { timeZone: ev.timeZone } : {}),
            });
            route(`${shopPath(shop.id, 'events', event.id)}?created=1`);
          });
        }}
      >
        <div class="form-grid">{fields}</div>
        <div class="actions">
          <button type="submit" aria-busy={create.busy ? 'true' : undefined}>
            {t('views.events.createButton')}
          </button>
          <Feedback of={create} />
        </div>
      </form>
    </section>
  );
}

/** The shop's public window: its description and whether discovery lists it (owner writes). */
function ShopWindow({ shop }: { shop: Shop }) {
  const { client, isOwner, reloadShops } = useSession();
  const [name, setName] = useState(shop.name);
  const [description, setDescription] = useState(shop.description ?? '');
  const [discoverable, setDiscoverable] = useState(shop.discoverable);
  const save = useAction();
  const form = useForm({ name: 'shop-name', description: 'shop-description' });
  return (
    <section class="panel-section" aria-labelledby="shop-window-title">
      <h2 id="shop-window-title">{t('views.events.window')}</h2>
      {isOwner ? (
        <form
          novalidate
          onSubmit={(e) => {
            e.preventDefault();
            void form.submit(save, async () => {
              if (!name.trim()) throw new FormProblems({ 'shop-name': t('views.events.needShopName') });
              await client.call('update_shop_settings', {
                id: shop.id,
                name: name.trim(),
                description: description.trim() ? description.trim() : null,
                discoverable,
              });
              await reloadShops();
              return t('views.events.windowSaved');
            });
          }}
        >
          <TextField
            id="shop-name"
            label={t('views.events.shopName')}
            required
            maxLength={200}
            value={name}
            onValue={setName}
            error={form.errors['shop-name']}
          />
          <TextAreaField
            id="shop-description"
            label={t('views.events.description')}
            hint={t('views.events.descriptionHint')}
            maxLength={2000}
            value={description}
            onValue={setDescription}
            error={form.errors['shop-description']}
          />
          <CheckboxField
            id="shop-discoverable"
            label={t('views.events.discoverable')}
            checked={discoverable}
            onChecked={setDiscoverable}
          />
          <div class="actions">
            <button type="submit" aria-busy={save.busy ? 'true' : undefined}>
              {t('views.events.saveWindow')}
            </button>
            <Feedback of={save} />
          </div>
        </form>
      ) : (
        <p>
          {shop.discoverable ? t('views.events.isDiscoverable') : t('views.events.notDiscoverable')}{' '}
          {shop.description ?? ''}
        </p>
      )}
    </section>
  );
}

export const eventsView: ViewDef = {
  id: 'events',
  path: '/console/shops/:shopId/events',
  title: 'views.events.title',
  component: Events,
  nav: 'shop',
};
export { eventView };
