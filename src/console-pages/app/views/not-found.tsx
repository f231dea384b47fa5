/** The view for a console URL that names no view, or one this person may not open (another's shop: 404 too). */
import { PageHeader } from '../kit/page-header.tsx';
import { t } from '../i18n.ts';

export function NotFound() {
  return (
    <>
      <PageHeader title={t('views.notFound.title')} intro={t('views.notFound.intro')} />
      <p>
        <a href="/console">{t('views.notFound.home')}</a>
      </p>
    </>
  );
}
