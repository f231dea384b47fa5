/**
 * The frame around every view: skip link, header with the product, the shop switcher and the person; the sidebar
 * (a menu button under 48rem); the language picker and sign-out; <main> holding the view.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { LANGS } from '../../../i18n/langs.ts';
import { lang, LANG_NAMES, t } from '../i18n.ts';
import { useSession, type Shop } from '../session.tsx';
import { pathOf, shopPath, type ViewDef } from '../view.ts';
import { VIEWS } from '../views.ts';

export interface LayoutProps {
  children: ComponentChildren;
  viewId: string;
  changeLang: (lang: string) => Promise<void>;
  /** Sign-in and the e-mailed links: no sidebar. */
  public?: boolean;
  shop?: Shop | undefined;
  view?: ViewDef | undefined;
}

export function Layout(p: LayoutProps) {
  const session = useSession();
  const { path, route } = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const shop = p.shop ?? session.shops[0];
  const listed = (nav: 'shop' | 'organization') =>
    VIEWS.filter((v) => v.nav === nav && (!v.ownerOnly || session.isOwner));
  const hrefOf = (v: ViewDef) => (shop ? pathOf(v.path, { shopId: shop.id }) : v.path);
  const switchShop = (id: string) => {
    // The same view in the other shop (a detail page goes to its list), else the shop's overview.
    const segment = p.view?.nav === 'shop' ? (path.split('/')[4] ?? 'overview') : 'overview';
    route(shopPath(id, segment));
  };
  return (
    <>
      <a class="skip-link" href="#main">
        {t('shell.skip')}
      </a>
      <header class="console-header">
        <p class="brand">{t('shell.product')}</p>
        {!p.public && session.me ? (
          <>
            {session.shops.length ? (
              <div class="shop-switcher">
                <label for="shop-switcher">{t('shell.shop')}</label>
                <select id="shop-switcher" value={shop?.id} onChange={(e) => switchShop(e.currentTarget.value)}>
                  {session.shops.map((s) => (
                    <option key={s.id} value={s.id}>
                      {s.name}
                    </option>
                  ))}
                </select>
              </div>
            ) : null}
            <button
              type="button"
              class="menu-button"
              aria-expanded={menuOpen ? 'true' : 'false'}
              aria-controls="sidebar"
              onClick={() => setMenuOpen(!menuOpen)}
            >
              {t('shell.menu')}
            </button>
          </>
        ) : null}
      </header>
      <div class={p.public ? 'console-body public' : 'console-body'}>
        {!p.public && session.me ? (
          <nav id="sidebar" class={menuOpen ? 'sidebar open' : 'sidebar'} aria-label={t('shell.sections')}>
            {shop ? (
              <>
                <h2 class="nav-heading">{shop.name}</h2>
                <ul>
                  {listed('shop').map((v) => (
                    <NavLink key={v.id} id={v.id} href={hrefOf(v)} current={p.viewId === v.id} label={t(v.title)} />
                  ))}
                </ul>
              </>
            ) : null}
            <h2 class="nav-heading">{t('shell.organization')}</h2>
            <ul>
              {listed('organization').map((v) => (
                <NavLink key={v.id} id={v.id} href={hrefOf(v)} current={p.viewId === v.id} label={t(v.title)} />
              ))}
            </ul>
            <p class="who">{t('shell.signedInAs', { email: session.me.email, role: t(`roles.${session.me.role}`) })}</p>
            <button type="button" class="secondary" id="sign-out" onClick={() => void session.signOut()}>
              {t('shell.signOut')}
            </button>
          </nav>
        ) : null}
        <main id="main" tabindex={-1} data-view={p.viewId}>
          {p.children}
        </main>
      </div>
      <footer class="console-footer">
        <label for="console-lang">{t('shell.language')}</label>
        <select id="console-lang" value={lang()} onChange={(e) => void p.changeLang(e.currentTarget.value)}>
          {LANGS.map((l) => (
            <option key={l} value={l} lang={l}>
              {LANG_NAMES[l]}
            </option>
          ))}
        </select>
      </footer>
    </>
  );
}

function NavLink(p: { id: string; href: string; current: boolean; label: string }) {
  return (
    <li>
      <a id={`nav-${p.id}`} href={p.href} aria-current={p.current ? 'page' : undefined}>
        {p.label}
      </a>
    </li>
  );
}
