/** Events: the shop's events; an event's page with its pools and tiers; create, edit, cancel. */
import { PageHeader } from '../kit/page-header.tsx';
import { t } from '../i18n.ts';
import type { ViewDef } from '../view.ts';

function Events() {
  return <PageHeader title={t('views.events.title')} />;
}

function Event() {
  return <PageHeader title={t('views.event.title')} />;
}

export const eventsView: ViewDef = {
  id: 'events',
  path: '/console/shops/:shopId/events',
  title: 'views.events.title',
  component: Events,
  nav: 'shop',
};
export const eventView: ViewDef = {
  id: 'event',
  path: '/console/shops/:shopId/events/:eventId',
  title: 'views.event.title',
  component: Event,
  nav: false,
};
