/** Embed origins: which partner sites may embed the shop's consent view and call the buyer API from the browser. */
import { useState } from 'preact/hooks';
import { fieldOf } from '../api.ts';
import { Feedback, useAction } from '../kit/feedback.tsx';
import { TextField } from '../kit/field.tsx';
import { PageHeader } from '../kit/page-header.tsx';
import { t } from '../i18n.ts';
import { useSession } from '../session.tsx';
import type { ViewDef, ViewProps } from '../view.ts';

function EmbedOrigins({ shop }: ViewProps) {
  const { client, reloadShops } = useSession();
  const action = useAction();
  const [value, setValue] = useState(shop?.embedOrigin ?? '');
  const [error, setError] = useState('');
  if (!shop) return null;
  const submit = (e: Event) => {
    e.preventDefault();
    setError('');
    void action.run(async () => {
      try {
        const trimmed = value.trim();
        const s = await client.call('set_embed_origins', { id: shop.id, embedOrigin: trimmed === '' ? null : trimmed });
        setValue(s.embedOrigin);
        await reloadShops();
        return s.embedOrigins.length
          ? t('views.embed.saved', { origins: s.embedOrigins.join(', ') })
          : t('views.embed.cleared');
      } catch (err) {
        if (fieldOf(err, { embedOrigin: 'embed-origins', 'code:invalid_embed_origin': 'embed-origins' }))
          setError(t('views.embed.invalid'));
        throw err;
      }
    });
  };
  return (
    <>
      <PageHeader title={t('views.embed.title')} intro={t('views.embed.intro', { shop: shop.name })} />
      <section aria-labelledby="embed-current">
        <h2 id="embed-current">{t('views.embed.current')}</h2>
        {shop.embedOrigins.length ? (
          <ul>
            {shop.embedOrigins.map((o) => (
              <li key={o}>
                <code>{o}</code>
              </li>
            ))}
          </ul>
        ) : (
          <p>{t('views.embed.none')}</p>
        )}
      </section>
      <form noValidate onSubmit={submit}>
        <TextField
          id="embed-origins"
          label={t('views.embed.origins')}
          hint={t('views.embed.hint')}
          value={value}
          onValue={setValue}
          error={error}
          maxLength={1000}
          autoComplete="off"
        />
        <button type="submit" class="primary" aria-describedby="embed-feedback">
          {t('views.embed.save')}
        </button>
        <Feedback of={action} id="embed-feedback" />
      </form>
    </>
  );
}

export const embedOriginsView: ViewDef = {
  id: 'embed-origins',
  path: '/console/shops/:shopId/embed-origins',
  title: 'views.embed.title',
  component: EmbedOrigins,
  nav: 'shop',
};
