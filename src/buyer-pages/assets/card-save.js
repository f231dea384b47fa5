// Saving the card set up in the provider's frame with its spending cap: shared by the saved-cards page and the
// consent flow's new-card step.
import { api } from './api.js';
import { t } from './i18n.js';
import { parseMoney, ValidationError } from './ui.js';

/**
 * Checks the cap typed in `cap` (the field `card-cap`, in `currency`); the first time asks for the emailed code
 * (`code`, the code step) and resolves undefined; with the code, saves the card of `setupId` and resolves the saved
 * instrument (the code step reset).
 */
export async function saveCard(cap, currency, code, setupId) {
  if (!cap.value.trim()) throw new ValidationError([{ fieldId: 'card-cap', message: t('cards.capMissing') }]);
  const spendingCapMinor = parseMoney(cap.value, currency);
  if (spendingCapMinor === null) throw new ValidationError([{ fieldId: 'card-cap', message: t('cards.capInvalid') }]);
  if (code.pending) {
    await code.request();
    return undefined;
  }
  const saved = await api('POST', '/v1/buyer/instruments', { setupId, spendingCapMinor, ...code.proof() });
  code.reset();
  return saved.instrument;
}
