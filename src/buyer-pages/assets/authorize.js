// The authorize step of an MCP client's OAuth request, in the order: sign in by e-mail (the link comes back
// here), choose the shop (the session is rescoped to it: scope_buyer_session), name the agent, pick a saved card or
// enter a new one in the provider's frame (card-frame.js), set limits; ONE emailed code (authorize_agent, naming all of
// it) is sent with those details to /oauth/interaction/…/complete, which creates the agent and its permission and
// hands them to the client in one outcome.
import { adopt, api, current } from './api.js';
import { cardFrame } from './card-frame.js';
import { codeStep } from './code-step.js';
import { emailLinkForm } from './email-link-form.js';
import { readLimits } from './limits-form.js';
import { t } from './i18n.js';
import {
  byId,
  el,
  formatMoney,
  run,
  setStatus,
  showCurrency,
  showErrors,
  errorMessage,
  ValidationError,
} from './ui.js';

const UID = /^[A-Za-z0-9_-]{8,64}$/;
/** The card choice that frames the provider's form instead of a saved card. */
const NEW_CARD = 'new';

function isoDate(d) {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

const cardName = (c) =>
  t('cards.cardLabel', { scheme: c.scheme.charAt(0).toUpperCase() + c.scheme.slice(1), last4: c.last4 });

/** Finishes (or declines) the authorization: the server answers where the browser goes next (back to the client). */
async function finish(uid, outcome, body = {}, done = () => {}) {
  const answer = await api('POST', `/oauth/interaction/${encodeURIComponent(uid)}/${outcome}`, body, {
    withCookies: true,
  });
  done();
  location.assign(answer.redirectTo);
}

export async function init({ main }) {
  const uid = new URLSearchParams(location.search).get('interaction') ?? '';
  if (!UID.test(uid)) {
    byId('authorize-missing').hidden = false;
    return undefined;
  }
  // Who is asking: the application's registered name and where the browser returns (a phishing client shows here).
  try {
    const who = await api('GET', `/oauth/interaction/${encodeURIComponent(uid)}/details`, undefined, {
      withCookies: true,
    });
    const client = byId('authorize-client');
    client.textContent = t('authorize.client', { client: who.clientName, origin: who.redirectOrigin });
    client.hidden = false;
  } catch (err) {
    showErrors([{ message: errorMessage(err) }]);
    return undefined;
  }
  const decline = byId('authorize-decline');
  byId('authorize-decline-actions').hidden = false;
  decline.addEventListener('click', () => void run(decline, () => finish(uid, 'abort')));
  const s = current();
  if (!s || s.mode !== 'full') return signInStep(uid, main);
  return shopStep(uid, s);
}

/** Signed out: the e-mail address only; the link's landing page comes back here (`authorization`). */
function signInStep(uid, main) {
  byId('authorize-sign-in').hidden = false;
  const ids = { form: 'authorize-sign-in-form', email: 'authorize-email', sent: 'authorize-sent' };
  emailLinkForm(main, { ...ids, sentText: 'authorize-sent-text' }, 'authorize.sent', () => ({ authorization: uid }));
  return undefined;
}

/** Signed in: the shop (a discoverable one); the session is exchanged for one for that shop. */
async function shopStep(uid, s) {
  byId('authorize-shop-step').hidden = false;
  byId('authorize-signed-in').textContent = t('authorize.signedIn', { email: s.email });
  const form = byId('authorize-shop-form');
  const submit = form.querySelector('button[type="submit"]');
  const select = byId('authorize-shop');
  try {
    const { shops } = await api('GET', '/v1/discovery/shops?limit=100');
    select.replaceChildren(...shops.map((shop) => el('option', { value: shop.id, text: shop.name })));
    if (s.merchantId && shops.some((shop) => shop.id === s.merchantId)) select.value = s.merchantId;
  } catch (err) {
    showErrors([{ message: errorMessage(err) }]);
  }
  let cleanup;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void run(
      submit,
      async () => {
        const merchantId = select.value;
        if (!merchantId)
          throw new ValidationError([{ fieldId: 'authorize-shop', message: t('authorize.shopMissing') }]);
        const chosen =
          merchantId === current()?.merchantId
            ? current()
            : await adopt((await api('POST', '/v1/buyer/session-scopes', { merchantId })).token);
        byId('authorize-shop-step').hidden = true;
        cleanup = await grantStep(uid, chosen);
        byId('authorize-grant-title').focus();
      },
      { not_found: 'authorize-shop' },
    );
  });
  return () => cleanup?.();
}

/** The agent, the card, the limits, and the one code that confirms them. */
async function grantStep(uid, s) {
  byId('authorize-grant').hidden = false;
  const currency = s.shop?.currency ?? 'EUR';
  showCurrency(byId('main'), currency);
  byId('authorize-for-shop').textContent = t('authorize.forShop', {
    shop: s.shop?.name ?? s.merchantId,
    email: s.email,
  });
  const { instruments } = await api('GET', '/v1/buyer/instruments');
  const usable = instruments.filter((c) => c.merchantId === s.merchantId);
  const select = byId('authorize-card');
  select.replaceChildren(
    ...usable.map((c) =>
      el('option', { value: c.id, text: `${cardName(c)} (${formatMoney(c.spendingCapMinor, c.currency)})` }),
    ),
    el('option', { value: NEW_CARD, text: t('authorize.newCard') }),
  );
  const form = byId('authorize-form');
  const submit = byId('authorize-submit');
  const expires = byId('authorize-expires');
  expires.min = isoDate(new Date(Date.now() + 86_400_000));
  expires.value = isoDate(new Date(Date.now() + 30 * 86_400_000));

  // A new card: the provider's form framed here, as on the Saved cards page; saved with the authorization.
  const start = byId('authorize-start-card');
  const another = byId('authorize-another-card');
  const readyText = byId('authorize-card-ready');
  let newCard = null;
  const cards = cardFrame({
    holder: byId('authorize-card-frame'),
    button: start,
    onReady(done) {
      newCard = done;
      readyText.textContent = t('cards.ready', { card: cardName(done) });
      readyText.hidden = false;
      start.hidden = true;
      another.hidden = false;
      setStatus(t('cards.ready', { card: cardName(done) }));
      readyText.focus();
    },
  });
  const showNewCard = () => {
    byId('authorize-new-card').hidden = select.value !== NEW_CARD;
  };
  select.addEventListener('change', showNewCard);
  showNewCard();
  start.addEventListener('click', () => void run(start, () => cards.start()));
  another.addEventListener(
    'click',
    () =>
      void run(another, async () => {
        newCard = null;
        readyText.hidden = true;
        another.hidden = true;
        start.hidden = false;
        await cards.another();
      }),
  );

  /** The form's details, checked: what the code will name and confirm. */
  const details = () => {
    const problems = [];
    const name = byId('authorize-agent-name').value.trim();
    if (!name) problems.push({ fieldId: 'authorize-agent-name', message: t('agents.nameMissing') });
    const card =
      select.value === NEW_CARD ? (newCard ? { setupId: newCard.setupId } : null) : { instrumentId: select.value };
    if (!card) problems.push({ fieldId: 'authorize-card', message: t('authorize.cardMissing') });
    const { perPurchaseCapMinor, allowanceMinor, end } = readLimits('authorize', currency, problems);
    if (problems.length) throw new ValidationError(problems);
    return {
      name,
      ...card,
      perPurchaseCapMinor,
      allowanceMinor,
      windowHours: Number(byId('authorize-window').value),
      expiresAt: end.toISOString(),
    };
  };
  const code = codeStep(form, 'authorize', 'authorize_agent', { details });

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void run(
      submit,
      async () => {
        const chosen = details();
        if (code.pending) return code.request();
        // The end of the authorize step runs authorize_agent itself, with the client's grant: one outcome.
        await finish(uid, 'complete', { ...chosen, ...code.proof() }, () => setStatus(t('authorize.done')));
      },
      {
        ...code.fields,
        instrument_provider_mismatch: 'authorize-card',
        instrument_not_found: 'authorize-card',
        card_setup_not_ready: 'authorize-card',
      },
    );
  });
  return cards.close;
}
