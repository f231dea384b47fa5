// The embeddable consent view (docs/embedding.md): waits for the partner's `session` message, verifies the buyer by
// an emailed code, then lets the buyer choose or create an agent, choose or save a card, set limits and grant the
// permission (consent-steps.js). Events go to the partner's exact origin only (never `*`); messages are accepted only
// from that origin and from the window that framed or opened this view. The bearers live in memory only.
import { adopt, api, ApiError, current, onSessionChange, signOut } from './api.js';
import { loadMessages, t } from './i18n.js';
import { byId, confirmDialog, errorMessage, run, showErrors } from './ui.js';
import { flow, main, origin, partner, post, saveDraft, show, SOURCE } from './consent-flow.js';
import { begin, closeCardFrame, wireVerify } from './consent-steps.js';

/** "Discard this setup?": on yes the draft is discarded and `cancelled` posted to the partner. */
function wireCancel() {
  const button = byId('consent-cancel');
  // confirmDialog resolves (false when dismissed) and run() shows its own errors: the click may run detached.
  const cancel = async () => {
    const yes = await confirmDialog('confirm-discard', {
      title: t('consent.discardTitle'),
      body: t('consent.discardBody'),
    });
    if (!yes) return;
    await run(button, async () => {
      if (current()?.merchantId) await api('POST', '/v1/buyer/consent-draft/discard', {});
      flow.finished = true;
      closeCardFrame();
      byId('content').hidden = true;
      byId('consent-discarded').hidden = false;
      byId('consent-discarded').focus();
      post('cancelled');
    });
  };
  button.addEventListener('click', () => void cancel());
}

/**
 * Re-renders the view in the session's language (before anything was typed): the same URL with `lang`, swapped in
 * place.
 */
async function swapLanguage(lang) {
  const url = new URL(location.href);
  url.searchParams.set('lang', lang);
  const res = await fetch(url, { credentials: 'omit' });
  if (!res.ok) return;
  const doc = new DOMParser().parseFromString(await res.text(), 'text/html');
  const fresh = doc.getElementById('main');
  if (!fresh || fresh.dataset.lang !== lang) return;
  await loadMessages(lang);
  main.replaceChildren(...fresh.childNodes);
  main.dataset.lang = lang;
  document.documentElement.lang = lang;
  document.title = doc.title;
}

/** The partner's session: adopt it (memory only), check it is for this shop, then verify the buyer by code. */
async function receiveSession(token) {
  try {
    const s = await adopt(token);
    if (s.merchantId !== main.dataset.shop)
      throw new ApiError('session_wrong_shop', 'The session is for another shop.', 403);
    if (s.lang && !main.hasAttribute('data-lang-fixed') && s.lang !== main.dataset.lang) await swapLanguage(s.lang);
  } catch (err) {
    signOut('refused');
    byId('consent-waiting').hidden = true;
    byId('consent-failed').hidden = false;
    post('error', {
      code: err instanceof ApiError ? err.code : 'session_invalid',
      message: err instanceof ApiError && err.message ? err.message : 'The session could not be used.',
    });
    return;
  }
  byId('consent-waiting').hidden = true;
  byId('content').hidden = false;
  wireCancel();
  if (current().mode === 'full') {
    await begin();
    return;
  }
  wireVerify(() => begin());
  show('verify');
}

async function init() {
  await loadMessages(main.dataset.lang);
  if (!origin) {
    main.setAttribute('data-ready', '');
    return;
  }
  let received = false;
  window.addEventListener('message', (event) => {
    if (event.origin !== origin || !partner || event.source !== partner) return;
    const data = event.data;
    if (!data || data.source !== SOURCE || data.version !== 1) return;
    if (data.type === 'session' && typeof data.token === 'string' && !received) {
      received = true;
      void receiveSession(data.token).catch((err) => showErrors([{ message: errorMessage(err) }]));
    } else if (data.type === 'close') {
      void saveDraft();
    }
  });
  onSessionChange((_s, reason) => {
    if (reason === 'expired') post('error', { code: 'unauthenticated', message: 'The session has ended.' });
  });
  window.addEventListener('pagehide', () => void saveDraft(true));
  if ('ResizeObserver' in window) {
    let last = 0;
    new ResizeObserver(() => {
      const height = Math.ceil(document.documentElement.scrollHeight);
      if (height !== last) {
        last = height;
        post('resize', { height });
      }
    }).observe(document.body);
  }
  main.setAttribute('data-ready', '');
  if (main.dataset.viewError)
    post('error', { code: main.dataset.viewError, message: 'The theme could not be read; the default theme is used.' });
  post('ready');
}

void init();
