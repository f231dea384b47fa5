/** Orders: search, filter and page the shop's orders; an order's page with refunds and the tickets e-mail. */
import { PageHeader } from '../kit/page-header.tsx';
import { t } from '../i18n.ts';
import type { ViewDef } from '../view.ts';

function Orders() {
  return <PageHeader title={t('views.orders.title')} />;
}

function Order() {
  return <PageHeader title={t('views.order.title')} />;
}

export const ordersView: ViewDef = {
  id: 'orders',
  path: '/console/shops/:shopId/orders',
  title: 'views.orders.title',
  component: Orders,
  nav: 'shop',
};
export const orderView: ViewDef = {
  id: 'order',
  path: '/console/shops/:shopId/orders/:orderId',
  title: 'views.order.title',
  component: Order,
  nav: false,
};
