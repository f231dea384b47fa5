// The limits of a grant form (per purchase, allowance per period, end date), read and checked alike on the permissions
// page and the authorize page: fields `<prefix>-per-purchase`, `<prefix>-allowance`, `<prefix>-expires`.
import { t } from './i18n.js';
import { byId, parseMoney } from './ui.js';

/** The amounts in minor units and the end of the chosen day (local time); each problem is pushed onto `problems`. */
export function readLimits(prefix, currency, problems) {
  const amount = (id) => {
    const value = byId(id).value;
    const minor = parseMoney(value, currency);
    if (minor === null)
      problems.push({
        fieldId: id,
        message: value.trim() ? t('permissions.amountInvalid') : t('permissions.amountMissing'),
      });
    return minor;
  };
  const perPurchaseCapMinor = amount(`${prefix}-per-purchase`);
  const allowanceMinor = amount(`${prefix}-allowance`);
  if (perPurchaseCapMinor !== null && allowanceMinor !== null && allowanceMinor < perPurchaseCapMinor) {
    problems.push({ fieldId: `${prefix}-allowance`, message: t('permissions.allowanceTooSmall') });
  }
  const [y, m, d] = byId(`${prefix}-expires`).value.split('-').map(Number);
  const end = y && m && d ? new Date(y, m - 1, d, 23, 59, 59) : null;
  if (!end || end.getTime() <= Date.now())
    problems.push({ fieldId: `${prefix}-expires`, message: t('permissions.expiresInvalid') });
  return { perPurchaseCapMinor, allowanceMinor, end };
}
