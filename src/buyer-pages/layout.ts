/**
 * The document shell every buyer page shares: language, title, skip link, navigation, session bar and status regions.
 */
import type { Catalogs, Translate } from '../i18n/i18n.ts';
import { html, type Markup } from './html.ts';

export type PageId =
  'sign-in' | 'verify' | 'agents' | 'cards' | 'permissions' | 'tickets' | 'authorize' | 'limit-raise' | 'offer';

/** What a page renders inside <main>, after its h1 and the status regions. */
export interface PageContext {
  t: Translate;
  lang: string;
  /** `?merchantId=` of the request (sign-in for a shop), when present. */
  merchantId: string | undefined;
  /** A buyer-page path with the page's language kept. */
  href: (path: string, extra?: Record<string, string | undefined>) => string;
}

export interface PageDefinition {
  id: PageId;
  path: string;
  /** Catalog key of the page's title (the h1 and the document title). */
  titleKey: string;
  body(ctx: PageContext): Markup;
}

const NAV: readonly { id: PageId; path: string; key: string }[] = [
  { id: 'sign-in', path: '/buyer/sign-in', key: 'nav.signIn' },
  { id: 'agents', path: '/buyer/agents', key: 'nav.agents' },
  { id: 'cards', path: '/buyer/cards', key: 'nav.cards' },
  { id: 'permissions', path: '/buyer/permissions', key: 'nav.permissions' },
  { id: 'tickets', path: '/buyer/tickets', key: 'nav.tickets' },
];

function languageNav(catalogs: Catalogs, ctx: PageContext, path: string): Markup {
  if (catalogs.langs.length < 2) return html``;
  return html`<nav class="languages" aria-label="${ctx.t('common.langLabel')}"><ul>${catalogs.langs.map((l) => {
    const name = catalogs.translator(l)('language.name');
    const here = l === ctx.lang;
    return html`<li><a href="${ctx.href(path, { lang: l })}" hreflang="${l}" lang="${l}"${here ? html` aria-current="true"` : ''}>${name}</a></li>`;
  })}</ul></nav>`;
}

/** The whole HTML document for a page. No inline script or style: everything comes from /buyer/assets. */
export function renderDocument(catalogs: Catalogs, page: PageDefinition, ctx: PageContext): string {
  const { t } = ctx;
  const title = t(page.titleKey);
  const doc = html`<!doctype html>
<html lang="${ctx.lang}" dir="ltr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light dark">
<title>${t('common.pageTitle', { title })}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/buyer/assets/buyer.css">
<script type="module" src="/buyer/assets/app.js"></script>
</head>
<body>
<a class="skip-link" href="#main">${t('common.skipLink')}</a>
<header class="site-header">
  <p class="brand">${t('common.brand')}</p>
  <nav class="site-nav" aria-label="${t('common.navLabel')}"><ul>${NAV.map(
    (n) =>
      html`<li${n.id === 'sign-in' ? html` data-signed-out-only` : ''}><a href="${ctx.href(n.path)}"${n.id === page.id || (n.id === 'sign-in' && page.id === 'verify') ? html` aria-current="page"` : ''}>${t(n.key)}</a></li>`,
  )}</ul></nav>
  <div id="session-bar" class="session-bar" hidden><span id="session-who"></span> <button type="button" id="sign-out" class="link-button">${t('common.signOut')}</button></div>
  ${languageNav(catalogs, ctx, page.path)}
</header>
<main id="main" tabindex="-1" data-page="${page.id}" data-lang="${ctx.lang}">
<h1 id="page-title" tabindex="-1">${title}</h1>
<div id="error-summary" class="error-summary" tabindex="-1" aria-labelledby="error-summary-title" hidden>
  <div role="alert"><h2 id="error-summary-title">${t('common.errorSummaryTitle')}</h2><ul id="error-list"></ul></div>
</div>
<div id="status" class="status" role="status" aria-live="polite" aria-atomic="true"></div>
<noscript><p class="notice">${t('common.noscript')}</p></noscript>
${page.body(ctx)}
</main>
</body>
</html>
`;
  return doc.value;
}
