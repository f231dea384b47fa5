/**
 * The application: one URL per view under /console (History API; back, forward and deep links work), the view
 * matched from the registry, guarded (signed in, owner-only, the shop one of the organization's), titled, and
 * focused on its heading after each navigation.
 */
import { useEffect, useState } from 'preact/hooks';
import { LocationProvider, useLocation } from 'preact-iso';
import { exec } from 'preact-iso/router';
import { loadMessages, t } from '../i18n.ts';
import { SessionProvider, useSession } from '../session.tsx';
import { shopPath, type ViewDef } from '../view.ts';
import { VIEWS } from '../views.ts';
import { NotFound } from '../views/not-found.tsx';
import { Layout } from './layout.tsx';

export function App() {
  // A language change reloads the messages and renders everything again under a new key.
  const [langKey, setLangKey] = useState(0);
  const changeLang = async (lang: string) => {
    await loadMessages(lang, true);
    setLangKey((k) => k + 1);
  };
  return (
    <LocationProvider scope="/console">
      <SessionProvider>
        <Shell key={langKey} changeLang={changeLang} />
      </SessionProvider>
    </LocationProvider>
  );
}

/** The first view whose pattern matches `path`, with its parameters. */
function match(path: string): { view: ViewDef; params: Record<string, string> } | undefined {
  for (const view of VIEWS) {
    const m = exec(path, view.path);
    if (m) return { view, params: m.params };
  }
  return undefined;
}

function Shell(props: { changeLang: (lang: string) => Promise<void> }) {
  const { path, query, route } = useLocation();
  const session = useSession();
  const found = match(path);
  const view = found?.view;
  const shopId = found?.params.shopId;
  const shop = shopId ? session.shops.find((s) => s.id === shopId) : undefined;
  const needsSignIn = session.restored && !session.me && !view?.public && path !== '/console/sign-in';

  useEffect(() => {
    if (needsSignIn) route(`/console/sign-in?next=${encodeURIComponent(path)}`, true);
    else if (path === '/console' && session.me && session.shopsLoaded)
      // The first shop's overview; an organization without shops starts where one is created.
      route(session.shops[0] ? shopPath(session.shops[0].id, 'overview') : '/console/shops', true);
  }, [needsSignIn, path, session.me, session.shops, session.shopsLoaded]);

  const denied =
    !view || (view.ownerOnly && !session.isOwner) || (shopId !== undefined && session.shopsLoaded && !shop);
  const title = denied ? t('views.notFound.title') : t(view.title);
  useEffect(() => {
    document.title = `${title} · ${t('shell.product')}`;
  }, [title]);
  // Keyboard and screen-reader users land on the new view's heading.
  useEffect(() => {
    const heading = document.getElementById('view-title');
    if (heading && document.activeElement !== heading) heading.focus();
  }, [path]);

  if (!session.restored || needsSignIn || (path === '/console' && session.me))
    return <p class="loading">{t('shell.loading')}</p>;
  if (view?.public || !session.me)
    return (
      <Layout public changeLang={props.changeLang} viewId={view?.id ?? 'not-found'}>
        {view && !denied ? <view.component params={found.params} query={query} shop={undefined} /> : <NotFound />}
      </Layout>
    );
  if (shopId !== undefined && !session.shopsLoaded) return <p class="loading">{t('shell.loading')}</p>;
  return (
    <Layout changeLang={props.changeLang} viewId={denied ? 'not-found' : view.id} shop={shop} view={view}>
      {denied ? <NotFound /> : <view.component key={path} params={found!.params} query={query} shop={shop} />}
    </Layout>
  );
}
