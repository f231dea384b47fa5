// The saved-cards page: lists the buyer's cards and saves a new one. The card number is typed into the payment
// provider's hosted form in an <iframe> (card-frame.js); it posts back only a payment method, accepted from the form's
// origin. Each card's spending cap is changed in a panel (card-cap.js).
import { api, current } from './api.js';
import { wireCapForm } from './card-cap.js';
import { cardFrame } from './card-frame.js';
import { saveCard } from './card-save.js';
import { codeStep } from './code-step.js';
import { t } from './i18n.js';
import {
  byId,
  confirmDialog,
  el,
  errorMessage,
  formatDate,
  formatMoney,
  run,
  setStatus,
  showCurrency,
  showErrors,
} from './ui.js';

const schemeName = (scheme) => (scheme ? scheme.charAt(0).toUpperCase() + scheme.slice(1) : '');
const cardName = (scheme, last4) => t('cards.cardLabel', { scheme: schemeName(scheme), last4 });

export async function init() {
  const s = current();
  if (!s) return undefined;
  const currency = s.shop?.currency ?? null;
  if (currency) showCurrency(byId('main'), currency);
  byId('cards-list-title').setAttribute('tabindex', '-1');
  const openCap = wireCapForm(s, (i) => cardName(i.scheme, i.last4), refresh);

  function capButton(i) {
    const b = el('button', {
      type: 'button',
      id: `change-cap-${i.id}`,
      'aria-label': t('cards.changeCapNamed', { card: cardName(i.scheme, i.last4) }),
      text: t('cards.changeCap'),
    });
    b.addEventListener('click', () => openCap(i));
    return b;
  }

  function removeButton(i) {
    const card = cardName(i.scheme, i.last4);
    const b = el('button', {
      type: 'button',
      id: `remove-card-${i.id}`,
      className: 'danger',
      'aria-label': t('cards.removeNamed', { card }),
      text: t('cards.remove'),
    });
    b.addEventListener('click', () =>
      run(b, async () => {
        const ok = await confirmDialog('confirm-remove-card', {
          title: t('cards.confirmRemoveTitle', { card }),
          body: t('cards.confirmRemoveBody'),
        });
        if (!ok) return;
        await api('DELETE', `/v1/buyer/instruments/${encodeURIComponent(i.id)}`);
        await refresh();
        byId('cards-list-title').focus();
        setStatus(t('cards.removed', { card }));
      }),
    );
    return b;
  }

  async function refresh() {
    const { instruments } = await api('GET', '/v1/buyer/instruments');
    byId('cards-empty').hidden = instruments.length > 0;
    byId('cards-table').hidden = instruments.length === 0;
    byId('cards-rows').replaceChildren(
      ...instruments.map((i) =>
        el(
          'tr',
          {},
          el('th', { scope: 'row', text: cardName(i.scheme, i.last4) }),
          el('td', { text: formatMoney(i.spendingCapMinor, i.currency) }),
          el('td', { text: s.shop && s.shop.id === i.merchantId ? s.shop.name : i.merchantId }),
          el('td', { text: formatDate(i.createdAt) }),
          el('td', { className: 'actions' }, capButton(i), ' ', removeButton(i)),
        ),
      ),
    );
  }

  // Wire the form before the first load, so an early click is never lost.
  const cleanup = s.mode === 'full' && s.merchantId && currency ? wireAddCard(currency, refresh) : undefined;
  try {
    await refresh();
  } catch (err) {
    showErrors([{ message: errorMessage(err) }]);
  }
  return cleanup;
}

/** Starting a setup, the framed card form (card-frame.js), then saving the card with the emailed code. */
function wireAddCard(currency, refresh) {
  const start = byId('start-card-setup');
  const form = byId('save-card-form');
  const cap = byId('card-cap');
  const submit = form.querySelector('button[type="submit"]');
  const another = byId('discard-card-setup');
  const code = codeStep(form, 'card', 'save_card');
  const cards = cardFrame({
    holder: byId('card-frame'),
    button: start,
    onReady(done) {
      const name = cardName(done.scheme, done.last4);
      byId('card-ready').textContent = t('cards.ready', { card: name });
      form.hidden = false;
      start.hidden = true;
      setStatus(t('cards.ready', { card: name }));
      cap.focus();
    },
  });

  start.addEventListener('click', () => void run(start, () => cards.start()));

  // After the frame answered: drop that setup (it is never resumed) and frame the form for a new one.
  another.addEventListener(
    'click',
    () =>
      void run(another, async () => {
        code.reset();
        form.reset();
        form.hidden = true;
        start.hidden = false;
        await cards.another();
      }),
  );

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void run(
      submit,
      async () => {
        const saved = await saveCard(cap, currency, code, cards.setup.setupId);
        if (!saved) return;
        form.reset();
        form.hidden = true;
        start.hidden = false;
        cards.forget();
        await refresh();
        setStatus(t('cards.saved', { card: cardName(saved.scheme, saved.last4) }));
        byId('cards-list-title').focus();
      },
      { ...code.fields, card_setup_not_ready: 'card-cap' },
    );
  });

  return cards.close;
}
