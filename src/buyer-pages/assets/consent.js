// The embeddable consent view (docs/embedding.md): waits for the partner's `session` message, verifies the buyer by
// an emailed code, then lets the buyer choose or create an agent, choose or save a card, set limits and grant the
// permission. Events go to the partner's exact origin only (never `*`); messages are accepted only from that origin
// and from the window that framed or opened this view. The bearers live in memory only.
import { adopt, api, ApiError, current, onSessionChange, sendKeepalive } from './api.js';
import { codeStep } from './code-step.js';
import { loadMessages, t } from './i18n.js';
import { byId, confirmDialog, el, errorMessage, formatMoney, parseMoney, run, setStatus, showCurrency, showErrors, ValidationError } from './ui.js';

const SOURCE = 'tessera-consent';
const FORM_MESSAGE = 'sandbox.payment_method';
const NEW = '__new__';

const main = byId('main');
const origin = main.dataset.origin ?? null;
const popup = main.dataset.mode === 'popup';
const partner = popup ? window.opener : window.parent !== window ? window.parent : null;

/** Posts an event to the partner page, to its exact origin only. */
function post(type, payload = {}) {
  if (!origin || !partner) return;
  partner.postMessage({ source: SOURCE, version: 1, type, ...payload }, origin);
}

// The state of the setup: what a draft keeps.
const state = { step: null, agentId: null, agentName: null, instrumentId: null, cardName: null, limits: {} };
let started = false;
let finished = false;

function draftBody() {
  return { step: state.step, agentId: state.agentId, instrumentId: state.instrumentId, limits: state.limits };
}

/** Keeps the setup as a draft on the server (one day); `keepalive` when the frame is going away. */
async function saveDraft(keepalive = false) {
  if (!started || finished || !['agent', 'card', 'limits'].includes(state.step)) return;
  if (keepalive) {
    sendKeepalive('PUT', '/v1/buyer/consent-draft', draftBody());
    return;
  }
  try {
    await api('PUT', '/v1/buyer/consent-draft', draftBody());
  } catch {
    /* a draft that cannot be saved is not worth interrupting the buyer for */
  }
}

function show(stepId, { focus = true } = {}) {
  for (const s of document.querySelectorAll('.consent-step')) s.hidden = s.id !== `step-${stepId}`;
  state.step = stepId;
  if (focus) byId(`step-${stepId}-title`).focus();
  void saveDraft();
}

const schemeName = (scheme) => (scheme ? scheme.charAt(0).toUpperCase() + scheme.slice(1) : '');
const cardName = (i) => t('cards.cardLabel', { scheme: schemeName(i.scheme), last4: i.last4 });

/** Verifying the bounded session by code: the answer is a full session of the same buyer and shop. */
function wireVerify(next) {
  const form = byId('verify-form');
  const code = codeStep(form, 'verify', 'verify_session');
  byId('verify-body').textContent = t('consent.verifyBody', { email: current().email });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    run(
      form.querySelector('button[type="submit"]'),
      async () => {
        if (code.pending) return code.request();
        const full = await api('POST', '/v1/buyer/session-step-ups', code.proof());
        await adopt(full.token);
        await next();
      },
      code.fields,
    );
  });
}

function wireAgent() {
  const form = byId('agent-form');
  const choice = byId('agent-choice');
  const submit = form.querySelector('button[type="submit"]');
  const code = codeStep(form, 'agent', 'create_agent');
  const sync = () => {
    const isNew = choice.value === NEW;
    byId('agent-new').hidden = !isNew;
    if (!isNew) code.reset();
    submit.textContent = isNew && !code.pending ? submit.dataset.final : t('common.continue');
  };
  choice.addEventListener('change', sync);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    run(
      submit,
      async () => {
        if (choice.value !== NEW) {
          state.agentId = choice.value;
          state.agentName = choice.selectedOptions[0].textContent;
          return enterCard();
        }
        const name = byId('agent-name').value.trim();
        if (!name) throw new ValidationError([{ fieldId: 'agent-name', message: t('agents.nameMissing') }]);
        if (code.pending) return code.request();
        const created = await api('POST', '/v1/buyer/agents', { name, ...code.proof() });
        code.reset();
        state.agentId = created.agent.id;
        state.agentName = created.agent.name;
        if (created.token) {
          byId('new-credential-value').value = created.token;
          byId('new-credential-value').setAttribute('aria-label', t('agents.credentialLabel', { name }));
          byId('new-credential').hidden = false;
        }
        setStatus(t('agents.created', { name }));
        return enterCard();
      },
      code.fields,
    );
  });
  return { sync };
}

async function enterAgent() {
  const { agents } = await api('GET', '/v1/buyer/agents');
  const live = agents.filter((a) => a.status === 'active');
  byId('agent-choice').replaceChildren(
    ...live.map((a) => el('option', { value: a.id, text: a.name, selected: a.id === state.agentId })),
    el('option', { value: NEW, text: t('consent.agentNew'), selected: !live.some((a) => a.id === state.agentId) }),
  );
  agentUi.sync();
  show('agent');
}

function wireCard(currency) {
  const chooseForm = byId('card-choice-form');
  const choice = byId('card-choice');
  const chooseSubmit = byId('card-choice-submit');
  const holder = byId('card-frame');
  const form = byId('save-card-form');
  const cap = byId('card-cap');
  const code = codeStep(form, 'card', 'save_card');
  let setup = null;
  let frame = null;
  let onMessage = null;
  const sync = () => {
    const isNew = choice.value === NEW;
    byId('card-add-intro').hidden = !isNew;
    chooseSubmit.textContent = isNew ? chooseSubmit.dataset.add : chooseSubmit.dataset.next;
  };
  choice.addEventListener('change', sync);
  const closeFrame = () => {
    if (onMessage) window.removeEventListener('message', onMessage);
    onMessage = null;
    frame?.remove();
    frame = null;
    holder.hidden = true;
  };
  const ready = (done) => {
    closeFrame();
    byId('card-ready').textContent = t('cards.ready', { card: cardName(done) });
    form.hidden = false;
    setStatus(t('cards.ready', { card: cardName(done) }));
    cap.focus();
  };
  const openFrame = () => {
    closeFrame();
    const formOrigin = new URL(setup.formUrl, location.href).origin;
    frame = el('iframe', { src: setup.formUrl, title: t('cards.frameTitle'), className: 'provider-frame', referrerpolicy: 'no-referrer' });
    onMessage = (event) => {
      if (event.origin !== formOrigin || !frame || event.source !== frame.contentWindow) return;
      const data = event.data;
      if (!data || data.type !== FORM_MESSAGE || typeof data.paymentMethod !== 'string') return;
      setStatus(t('cards.checking'));
      run(chooseSubmit, async () => {
        setup = await api('POST', `/v1/buyer/card-setups/${encodeURIComponent(setup.setupId)}/complete`, { paymentMethod: data.paymentMethod });
        ready(setup);
      });
    };
    window.addEventListener('message', onMessage);
    holder.append(frame);
    holder.hidden = false;
    frame.focus();
  };
  chooseForm.addEventListener('submit', (event) => {
    event.preventDefault();
    run(chooseSubmit, async () => {
      if (choice.value !== NEW) {
        state.instrumentId = choice.value;
        state.cardName = choice.selectedOptions[0].textContent;
        return enterLimits();
      }
      chooseForm.hidden = true;
      setup = await api('POST', '/v1/buyer/card-setups');
      if (setup.status === 'succeeded') ready(setup);
      else openFrame();
    });
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    run(
      form.querySelector('button[type="submit"]'),
      async () => {
        if (!cap.value.trim()) throw new ValidationError([{ fieldId: 'card-cap', message: t('cards.capMissing') }]);
        const spendingCapMinor = parseMoney(cap.value, currency);
        if (spendingCapMinor === null) throw new ValidationError([{ fieldId: 'card-cap', message: t('cards.capInvalid') }]);
        if (code.pending) return code.request();
        const saved = await api('POST', '/v1/buyer/instruments', { setupId: setup.setupId, spendingCapMinor, ...code.proof() });
        code.reset();
        form.hidden = true;
        chooseForm.hidden = false;
        state.instrumentId = saved.instrument.id;
        state.cardName = cardName(saved.instrument);
        setStatus(t('cards.saved', { card: state.cardName }));
        return enterLimits();
      },
      { ...code.fields, card_setup_not_ready: 'card-cap' },
    );
  });
  return { sync, closeFrame };
}

async function enterCard() {
  const { instruments } = await api('GET', '/v1/buyer/instruments');
  const s = current();
  const here = instruments.filter((i) => i.merchantId === s.merchantId);
  byId('card-choice').replaceChildren(
    ...here.map((i) => el('option', { value: i.id, text: `${cardName(i)} (${formatMoney(i.spendingCapMinor, i.currency)})`, selected: i.id === state.instrumentId })),
    el('option', { value: NEW, text: t('consent.cardNew'), selected: !here.some((i) => i.id === state.instrumentId) }),
  );
  cardUi.sync();
  show('card');
}

function wireLimits(currency) {
  const form = byId('grant-form');
  const code = codeStep(form, 'grant', 'grant_permission');
  const amountOf = (id) => {
    const input = byId(id);
    if (!input.value.trim()) throw new ValidationError([{ fieldId: id, message: t('permissions.amountMissing') }]);
    const minor = parseMoney(input.value, currency);
    if (minor === null) throw new ValidationError([{ fieldId: id, message: t('permissions.amountInvalid') }]);
    return minor;
  };
  // Whatever the buyer typed is part of the draft.
  form.addEventListener('change', () => {
    const limits = {};
    const per = parseMoney(byId('grant-per-purchase').value, currency);
    const all = parseMoney(byId('grant-allowance').value, currency);
    if (per !== null) limits.perPurchaseCapMinor = per;
    if (all !== null) limits.allowanceMinor = all;
    limits.windowHours = Number(byId('grant-window').value);
    const day = byId('grant-expires').value;
    if (day) limits.expiresAt = `${day}T23:59:59Z`;
    state.limits = limits;
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    run(
      form.querySelector('button[type="submit"]'),
      async () => {
        const perPurchaseCapMinor = amountOf('grant-per-purchase');
        const allowanceMinor = amountOf('grant-allowance');
        if (allowanceMinor < perPurchaseCapMinor) throw new ValidationError([{ fieldId: 'grant-allowance', message: t('permissions.allowanceTooSmall') }]);
        const day = byId('grant-expires').value;
        const expiresAt = day ? new Date(`${day}T23:59:59Z`) : null;
        if (!expiresAt || Number.isNaN(expiresAt.getTime()) || expiresAt <= new Date()) {
          throw new ValidationError([{ fieldId: 'grant-expires', message: t('permissions.expiresInvalid') }]);
        }
        if (code.pending) return code.request();
        const granted = await api('POST', '/v1/buyer/permissions', {
          agentId: state.agentId,
          instrumentId: state.instrumentId,
          perPurchaseCapMinor,
          allowanceMinor,
          windowHours: Number(byId('grant-window').value),
          expiresAt: expiresAt.toISOString(),
          ...code.proof(),
        });
        finished = true;
        byId('done-body').textContent = t('consent.done', { agent: state.agentName ?? granted.agentName ?? '', shop: current().shop?.name ?? '' });
        byId('consent-cancel').hidden = true;
        show('done');
        setStatus(t('permissions.granted', { agent: state.agentName ?? '' }));
        post('completed', { permissionId: granted.id });
      },
      code.fields,
    );
  });
}

function enterLimits() {
  const s = current();
  const L = state.limits ?? {};
  const money = (minor) => (typeof minor === 'number' ? new Intl.NumberFormat(document.documentElement.lang, { minimumFractionDigits: 2, useGrouping: false }).format(minor / 100) : '');
  byId('grant-who').textContent = t('consent.who', { agent: state.agentName ?? '', card: state.cardName ?? '' });
  if (L.perPurchaseCapMinor !== undefined) byId('grant-per-purchase').value = money(L.perPurchaseCapMinor);
  if (L.allowanceMinor !== undefined) byId('grant-allowance').value = money(L.allowanceMinor);
  if (L.windowHours) byId('grant-window').value = String(L.windowHours);
  if (L.expiresAt) byId('grant-expires').value = L.expiresAt.slice(0, 10);
  if (s.shop?.currency) showCurrency(byId('step-limits'), s.shop.currency);
  show('limits');
}

let agentUi = null;
let cardUi = null;

/** After verification: resume the draft at its step, or start with the agent. */
async function begin() {
  const s = current();
  const currency = s.shop?.currency ?? 'EUR';
  showCurrency(main, currency);
  agentUi = wireAgent();
  cardUi = wireCard(currency);
  wireLimits(currency);
  started = true;
  const { draft } = await api('GET', '/v1/buyer/consent-draft');
  if (draft) {
    Object.assign(state, { agentId: draft.agentId, instrumentId: draft.instrumentId, limits: draft.limits ?? {} });
    if (draft.agentId) {
      const { agents } = await api('GET', '/v1/buyer/agents');
      state.agentName = agents.find((a) => a.id === draft.agentId)?.name ?? null;
    }
    if (draft.instrumentId) {
      const { instruments } = await api('GET', '/v1/buyer/instruments');
      const i = instruments.find((x) => x.id === draft.instrumentId);
      state.cardName = i ? cardName(i) : null;
    }
    setStatus(t('consent.resumed'));
    if (draft.step === 'limits' && state.agentId && state.instrumentId) return enterLimits();
    if (draft.step !== 'agent' && state.agentId) return enterCard();
  } else {
    setStatus(t('consent.verified'));
  }
  return enterAgent();
}

/** "Discard this setup?": on yes the draft is discarded and `cancelled` posted to the partner. */
function wireCancel() {
  const button = byId('consent-cancel');
  button.addEventListener('click', async () => {
    const yes = await confirmDialog('confirm-discard', { title: t('consent.discardTitle'), body: t('consent.discardBody') });
    if (!yes) return;
    await run(button, async () => {
      if (current()?.merchantId) await api('POST', '/v1/buyer/consent-draft/discard', {});
      finished = true;
      cardUi?.closeFrame();
      byId('content').hidden = true;
      byId('consent-discarded').hidden = false;
      byId('consent-discarded').focus();
      post('cancelled');
    });
  });
}

/** Re-renders the view in the session's language (before anything was typed): the same URL with `lang`, swapped in place. */
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
    if (s.merchantId !== main.dataset.shop) throw new ApiError('session_wrong_shop', 'The session is for another shop.', 403);
    if (s.lang && !main.hasAttribute('data-lang-fixed') && s.lang !== main.dataset.lang) await swapLanguage(s.lang);
  } catch (err) {
    byId('consent-waiting').hidden = true;
    byId('consent-failed').hidden = false;
    post('error', { code: err instanceof ApiError ? err.code : 'session_invalid', message: err instanceof ApiError && err.message ? err.message : 'The session could not be used.' });
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
  if (main.dataset.viewError) post('error', { code: main.dataset.viewError, message: 'The theme could not be read; the default theme is used.' });
  post('ready');
}

void init();
