// Entry point of every buyer page: loads the catalog, keeps the in-memory session across page changes
// (links between buyer pages swap the document's body instead of reloading, so the bearer survives),
// shows what the session may do, and starts the page's own script.
import { adopt, api, current, onSessionChange, restore, signOut } from './api.js';
import { loadMessages, t } from './i18n.js';
import { byId, setStatus } from './ui.js';
import * as agents from './agents.js';
import * as authorize from './authorize.js';
import * as cards from './cards.js';
import * as permissions from './permissions.js';
import * as signIn from './sign-in.js';
import * as tickets from './tickets.js';
import * as verify from './verify.js';
import * as limitRaise from './limit-raise.js';
import * as offer from './offer.js';

const PAGES = {
  'sign-in': signIn,
  verify,
  agents,
  cards,
  permissions,
  tickets,
  authorize,
  'limit-raise': limitRaise,
  offer,
};
let cleanup = null;

/** Shows the signed-out panel or the content, and the parts the session may use. */
function applySession() {
  const main = byId('main');
  const s = current();
  // "Sign in" is offered only to someone signed out.
  for (const part of document.querySelectorAll('[data-signed-out-only]')) part.hidden = Boolean(s);
  const bar = byId('session-bar');
  if (bar) {
    bar.hidden = !s;
    if (s)
      byId('session-who').textContent = s.shop
        ? t('common.signedInAsForShop', { email: s.email, shop: s.shop.name })
        : t('common.signedInAs', { email: s.email });
  }
  const content = byId('content');
  if (!content) return;
  content.hidden = !s;
  byId('signed-out').hidden = !!s;
  if (!s) return;
  const full = s.mode === 'full';
  const hasShop = Boolean(s.merchantId);
  for (const part of main.querySelectorAll('[data-needs-full], [data-needs-consent]')) {
    const allowed = part.hasAttribute('data-needs-full') ? full : full || s.attested;
    part.hidden = !allowed || (part.hasAttribute('data-needs-shop') && !hasShop);
  }
  byId('bounded-notice').hidden = full || s.attested;
  byId('no-shop-notice').hidden = hasShop || !full || !main.querySelector('[data-needs-shop]');
}

async function mount(announce) {
  const main = byId('main');
  await loadMessages(main.dataset.lang);
  byId('sign-out')?.addEventListener('click', () => {
    signOut();
    void navigate(`/buyer/sign-in?lang=${encodeURIComponent(main.dataset.lang)}`, {
      announce: t('common.signedOutStatus'),
    });
  });
  applySession();
  const page = PAGES[main.dataset.page];
  cleanup = (await page?.init({ main, navigate })) ?? null;
  main.setAttribute('data-ready', '');
  if (announce) {
    // A region inserted with the new body needs a moment before screen readers follow its changes.
    const status = byId('status');
    setTimeout(() => {
      if (status?.isConnected) status.textContent = announce;
    }, 150);
  }
}

/**
 * Opens another buyer page without unloading this one (the bearer stays in memory): fetches its HTML,
 * swaps title, language and body, updates the history, and moves focus to the new page's heading.
 * A failed fetch falls back to a full page load; so click handlers `void` it, and an error while mounting the new
 * page reaches the browser console as an unhandled rejection, as a throwing handler's would.
 */
export async function navigate(url, { announce, replace = false, push = true } = {}) {
  const target = new URL(url, location.href);
  let text;
  try {
    const res = await fetch(target, { headers: { accept: 'text/html' }, credentials: 'omit' });
    if (!res.ok) throw new Error(String(res.status));
    text = await res.text();
  } catch {
    location.assign(target);
    return;
  }
  const doc = new DOMParser().parseFromString(text, 'text/html');
  if (cleanup) cleanup();
  cleanup = null;
  document.title = doc.title;
  document.documentElement.lang = doc.documentElement.lang;
  document.body.replaceWith(document.adoptNode(doc.body));
  const path = target.pathname + target.search;
  if (replace) history.replaceState(null, '', path);
  else if (push) history.pushState(null, '', path);
  await mount(announce);
  byId('page-title')?.focus();
}

/** Same-origin links to other buyer pages are followed without a reload; everything else behaves normally. */
function onClick(event) {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
    return;
  const link = event.target instanceof Element ? event.target.closest('a[href]') : null;
  if (!link || link.target || link.hasAttribute('download')) return;
  const url = new URL(link.href, location.href);
  if (
    url.origin !== location.origin ||
    !url.pathname.startsWith('/buyer/') ||
    url.pathname.startsWith('/buyer/assets/')
  )
    return;
  if (url.pathname === location.pathname && url.search === location.search && url.hash) return;
  event.preventDefault();
  const chosen = link.closest('nav.languages') ? url.searchParams.get('lang') : null;
  if (chosen) rememberLanguage(chosen);
  void navigate(url.href);
}

/**
 * The language menu: the page opens in the chosen language (every link keeps `?lang=`), and a signed-in buyer's
 * choice is saved on the buyer (`PUT /v1/buyer/language`), so later sessions, sign-in links and codes use it.
 * Nothing is stored in the browser.
 */
function rememberLanguage(lang) {
  if (!current()) return;
  api('PUT', '/v1/buyer/language', { lang }).catch(() => {
    /* the page still changes language; the choice is only not remembered */
  });
}

/** A merchant may hand its minted (bounded) session over in the fragment: `/buyer/agents#session=<bearer>`. */
async function takeHandOff() {
  const token = new URLSearchParams(location.hash.slice(1)).get('session');
  if (!token) return;
  history.replaceState(null, '', location.pathname + location.search);
  try {
    const s = await adopt(token);
    const explicit = new URLSearchParams(location.search).get('lang');
    if (s.lang && !explicit && s.lang !== document.documentElement.lang) {
      const url = new URL(location.href);
      url.searchParams.set('lang', s.lang);
      await navigate(url.href, { replace: true });
      return true;
    }
  } catch {
    /* an unusable hand-off leaves the page signed out */
  }
  return false;
}

onSessionChange((_session, reason) => {
  applySession();
  if (reason === 'expired') setStatus(t('errors.unauthenticated'));
});

async function start() {
  document.addEventListener('click', onClick);
  window.addEventListener('popstate', () => void navigate(location.href, { push: false }));
  if (await takeHandOff()) return;
  if (!current()) await restore(); // the page session of an earlier load (its cookie), if any
  await mount();
}

// Run once at load; an error in it reaches the browser console (unhandled rejection), as a top-level throw would.
void start();
