/** Overview: per event, sold / held / available per pool, revenue, sales over time and check-ins. */
import { PageHeader } from '../kit/page-header.tsx';
import { t } from '../i18n.ts';
import type { ViewDef } from '../view.ts';

function Overview() {
  return <PageHeader title={t('views.overview.title')} />;
}

export const overviewView: ViewDef = {
  id: 'overview',
  path: '/console/shops/:shopId/overview',
  title: 'views.overview.title',
  component: Overview,
  nav: 'shop',
};
