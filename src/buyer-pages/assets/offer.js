// The waiting-list offer page: the places held for the signed-in buyer (get_reservation, the event's and tier's names
// from get_event), paid with one of the buyer's saved cards of that shop (confirm with instrumentId) or declined
// (release, which passes the places to the next in line). No rule lives here: the API decides.
import { api, current } from './api.js';
import { lang, t } from './i18n.js';
import { byId, el, errorMessage, formatMoney, run, setStatus, showErrors } from './ui.js';

const ID = /^rsv_[0-9a-z]{10,40}$/;

const cardName = (c) =>
  t('cards.cardLabel', { scheme: c.scheme.charAt(0).toUpperCase() + c.scheme.slice(1), last4: c.last4 });

export async function init() {
  const id = new URLSearchParams(location.search).get('reservation') ?? '';
  if (!current()) return signInBack(id);
  if (!ID.test(id)) {
    byId('offer-missing').hidden = false;
    return;
  }
  try {
    const { reservation: r } = await api('GET', `/v1/ticketing/reservations/${encodeURIComponent(id)}`);
    const { event, tiers } = await api('GET', `/v1/catalog/events/${encodeURIComponent(r.eventId)}`);
    const tier = tiers.find((x) => x.id === r.tierId);
    const cards =
      r.state === 'held'
        ? (await api('GET', '/v1/buyer/instruments')).instruments.filter((c) => c.merchantId === r.merchantId)
        : [];
    show(r, event.title, tier?.name ?? r.tierId, cards);
  } catch (err) {
    showErrors([{ message: errorMessage(err) }]);
  }
}

/** Signed out: the sign-in link carries the offer (`?offer=`), so the e-mailed link comes back to it. */
function signInBack(id) {
  if (!ID.test(id)) return;
  for (const a of document.querySelectorAll('#signed-out a[href^="/buyer/sign-in"]')) {
    const url = new URL(a.getAttribute('href'), location.href);
    url.searchParams.set('offer', id);
    a.setAttribute('href', `${url.pathname}${url.search}`);
  }
}

/** The offer as it stands; while held, the card choice and the two answers. */
function show(r, eventTitle, tierName, cards) {
  const amount = formatMoney(r.totalMinor, r.currency);
  const until = new Intl.DateTimeFormat(lang(), { dateStyle: 'medium', timeStyle: 'short' });
  byId('offer-details').hidden = false;
  byId('offer-heading').textContent = t('offer.heading', { event: eventTitle, tier: tierName });
  byId('offer-places').textContent = t('offer.places', { count: r.quantity });
  byId('offer-amount').textContent = t('offer.amount', { amount });
  byId('offer-until').textContent = t('offer.heldUntil', { time: until.format(new Date(r.expiresAt)) });
  byId('offer-until').hidden = r.state !== 'held';
  if (r.state !== 'held') return ended(r.state === 'completed' ? t('offer.completed') : t('offer.released'));
  byId('offer-form').hidden = false;
  byId('offer-no-cards').hidden = cards.length > 0;
  byId('offer-card-field').hidden = cards.length === 0;
  const pay = byId('offer-pay');
  pay.textContent = t('offer.pay', { amount });
  pay.hidden = cards.length === 0;
  byId('offer-card').replaceChildren(...cards.map((c) => el('option', { value: c.id, text: cardName(c) })));
  wire(r);
}

/** The offer is answered: the state says how, the form goes, and focus moves to the state. */
function ended(text, { announce = false, tickets = true } = {}) {
  const state = byId('offer-state');
  byId('offer-form').hidden = true;
  byId('offer-until').hidden = true;
  byId('offer-tickets').hidden = !tickets;
  state.textContent = text;
  state.hidden = false;
  if (announce) {
    setStatus(text);
    state.focus();
  }
}

function wire(r) {
  const form = byId('offer-form');
  const pay = byId('offer-pay');
  const decline = byId('offer-decline');
  const path = `/v1/ticketing/reservations/${encodeURIComponent(r.id)}`;
  // One key per page and card: a retried click never pays twice; another card after a decline is a new attempt.
  const nonce = crypto.randomUUID();
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void run(pay, async () => {
      const instrumentId = byId('offer-card').value;
      const idempotencyKey = `offer-${nonce}-${instrumentId}`;
      const out = await api('POST', `${path}/confirm`, { instrumentId }, { idempotencyKey });
      const done = out.reservation.state === 'completed' && out.order;
      ended(done ? t('offer.paid', { orderId: out.order.id }) : t('offer.pending'), { announce: true });
    });
  });
  decline.addEventListener(
    'click',
    () =>
      void run(decline, async () => {
        await api('POST', `${path}/release`, {});
        ended(t('offer.declined'), { announce: true, tickets: false });
      }),
  );
}
