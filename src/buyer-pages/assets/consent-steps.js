// The consent view's steps: verifying the session by code, the agent, the card (in the provider's frame) and the
// limits with the grant. Each step that creates or widens authority asks for its own e-mailed code.
import { adopt, api, current } from './api.js';
import { cardFrame } from './card-frame.js';
import { saveCard } from './card-save.js';
import { codeStep } from './code-step.js';
import { t } from './i18n.js';
import { byId, el, formatMoney, parseMoney, run, setStatus, showCurrency, ValidationError } from './ui.js';
import { flow, main, post, show, state } from './consent-flow.js';

const NEW = '__new__';

const schemeName = (scheme) => (scheme ? scheme.charAt(0).toUpperCase() + scheme.slice(1) : '');
const cardName = (i) => t('cards.cardLabel', { scheme: schemeName(i.scheme), last4: i.last4 });

/** Verifying the bounded session by code: the answer is a full session of the same buyer and shop. */
export function wireVerify(next) {
  const form = byId('verify-form');
  const code = codeStep(form, 'verify', 'verify_session');
  byId('verify-body').textContent = t('consent.verifyBody', { email: current().email });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void run(
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
    void run(
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
  const sync = () => {
    const isNew = choice.value === NEW;
    byId('card-add-intro').hidden = !isNew;
    chooseSubmit.textContent = isNew ? chooseSubmit.dataset.add : chooseSubmit.dataset.next;
  };
  choice.addEventListener('change', sync);
  // The provider's form, framed as on the Saved cards page (card-frame.js).
  const cards = cardFrame({
    holder,
    button: chooseSubmit,
    onReady(done) {
      byId('card-ready').textContent = t('cards.ready', { card: cardName(done) });
      form.hidden = false;
      setStatus(t('cards.ready', { card: cardName(done) }));
      cap.focus();
    },
  });
  chooseForm.addEventListener('submit', (event) => {
    event.preventDefault();
    void run(chooseSubmit, async () => {
      if (choice.value !== NEW) {
        state.instrumentId = choice.value;
        state.cardName = choice.selectedOptions[0].textContent;
        return enterLimits();
      }
      chooseForm.hidden = true;
      await cards.start();
    });
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void run(
      form.querySelector('button[type="submit"]'),
      async () => {
        const saved = await saveCard(cap, currency, code, cards.setup.setupId);
        if (!saved) return undefined;
        form.hidden = true;
        chooseForm.hidden = false;
        state.instrumentId = saved.id;
        state.cardName = cardName(saved);
        setStatus(t('cards.saved', { card: state.cardName }));
        return enterLimits();
      },
      { ...code.fields, card_setup_not_ready: 'card-cap' },
    );
  });
  return { sync, closeFrame: cards.close };
}

async function enterCard() {
  const { instruments } = await api('GET', '/v1/buyer/instruments');
  const s = current();
  const here = instruments.filter((i) => i.merchantId === s.merchantId);
  byId('card-choice').replaceChildren(
    ...here.map((i) =>
      el('option', {
        value: i.id,
        text: `${cardName(i)} (${formatMoney(i.spendingCapMinor, i.currency)})`,
        selected: i.id === state.instrumentId,
      }),
    ),
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
    void run(
      form.querySelector('button[type="submit"]'),
      async () => {
        const perPurchaseCapMinor = amountOf('grant-per-purchase');
        const allowanceMinor = amountOf('grant-allowance');
        if (allowanceMinor < perPurchaseCapMinor)
          throw new ValidationError([{ fieldId: 'grant-allowance', message: t('permissions.allowanceTooSmall') }]);
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
        flow.finished = true;
        byId('done-body').textContent = t('consent.done', {
          agent: state.agentName ?? granted.agentName ?? '',
          shop: current().shop?.name ?? '',
        });
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
  const money = (minor) =>
    typeof minor === 'number'
      ? new Intl.NumberFormat(document.documentElement.lang, { minimumFractionDigits: 2, useGrouping: false }).format(
          minor / 100,
        )
      : '';
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
export async function begin() {
  const s = current();
  const currency = s.shop?.currency ?? 'EUR';
  showCurrency(main, currency);
  agentUi = wireAgent();
  cardUi = wireCard(currency);
  wireLimits(currency);
  flow.started = true;
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

/** Closes the provider's card frame, if open (the setup was discarded). */
export function closeCardFrame() {
  cardUi?.closeFrame();
}
