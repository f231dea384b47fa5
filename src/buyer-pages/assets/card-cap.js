// The "change cap" panel of the saved-cards page: lowering a card's spending cap takes effect at once (no code);
// raising it needs the emailed 6-digit code (the shared code step) and a full session.
import { api } from './api.js';
import { codeStep } from './code-step.js';
import { t } from './i18n.js';
import { byId, formatMoney, parseMoney, run, setStatus, ValidationError } from './ui.js';

/**
 * Wires the panel; returns `open(card)`, which each row's "Change cap" button calls. `name(card)` is the card's
 * display name; `refresh()` reloads the list (which re-creates the row buttons, ids `change-cap-<cardId>`).
 */
export function wireCapForm(session, name, refresh) {
  const panel = byId('change-cap');
  const form = byId('cap-form');
  const amount = byId('cap-amount');
  const submit = form.querySelector('button[type="submit"]');
  const code = codeStep(form, 'cap', 'raise_card_cap');
  let card = null;

  const close = (focusBack) => {
    const id = card?.id;
    code.reset();
    form.reset();
    panel.hidden = true;
    card = null;
    if (focusBack && id) byId(`change-cap-${id}`)?.focus();
  };

  byId('cap-cancel').addEventListener('click', () => close(true));
  panel.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    close(true);
  });

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!card) return;
    void run(
      submit,
      async () => {
        const value = amount.value;
        const minor = parseMoney(value, card.currency);
        if (minor === null)
          throw new ValidationError([
            { fieldId: 'cap-amount', message: value.trim() ? t('cards.capInvalid') : t('cards.capMissing') },
          ]);
        if (minor === card.spendingCapMinor)
          throw new ValidationError([{ fieldId: 'cap-amount', message: t('cards.capSame') }]);
        const path = `/v1/buyer/instruments/${encodeURIComponent(card.id)}`;
        let changed;
        if (minor < card.spendingCapMinor) {
          changed = await api('POST', `${path}/lower-cap`, { spendingCapMinor: minor });
        } else {
          if (session.mode !== 'full')
            throw new ValidationError([{ fieldId: 'cap-amount', message: t('cards.capRaiseNeedsFull') }]);
          if (code.pending) return code.request();
          changed = await api('POST', `${path}/raise-cap`, { spendingCapMinor: minor, ...code.proof() });
        }
        const id = card.id;
        close(false);
        // The list is reloaded before the change is announced, so what is announced is what the table shows.
        await refresh();
        setStatus(
          t('cards.capChanged', {
            card: name(changed),
            amount: formatMoney(changed.spendingCapMinor, changed.currency),
          }),
        );
        byId(`change-cap-${id}`)?.focus();
      },
      { ...code.fields, invalid_input: 'cap-amount', instrument_not_found: 'cap-amount' },
    );
  });

  return function open(next) {
    close(false);
    card = next;
    byId('change-cap-title').textContent = t('cards.capTitle', { card: name(next) });
    byId('change-cap-current').textContent = t('cards.capCurrent', {
      amount: formatMoney(next.spendingCapMinor, next.currency),
    });
    for (const slot of form.querySelectorAll('[data-currency]'))
      slot.textContent = t('common.inCurrency', { currency: next.currency });
    panel.hidden = false;
    amount.focus();
  };
}
