// Shared page behaviour: the status region, the error summary with inline field errors, busy buttons,
// confirmation dialogs, safe DOM building, and money and date formats.
import { ApiError } from './api.js';
import { has, lang, t } from './i18n.js';

/** A problem the page found before calling the API: `[{ fieldId, message }]`. */
export class ValidationError extends Error {
  constructor(problems) {
    super('validation');
    this.problems = problems;
  }
}

export const byId = (id) => document.getElementById(id);

/**
 * Builds an element: `el('td', { className: 'x', 'aria-label': 'y' }, child, 'text')`. Text is never parsed as HTML.
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'className') node.className = v;
    else if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

/** Announces a result politely in the page's status region. */
export function setStatus(text) {
  const status = byId('status');
  if (status) status.textContent = text;
}

/** Hides the error summary and every inline field error. */
export function clearErrors() {
  const summary = byId('error-summary');
  if (summary) {
    summary.hidden = true;
    byId('error-list').replaceChildren();
  }
  for (const error of document.querySelectorAll('.field-error:not([hidden])')) {
    error.hidden = true;
    error.textContent = '';
    const input = byId(error.id.replace(/-error$/, ''));
    if (!input) continue;
    input.removeAttribute('aria-invalid');
    const described = (input.getAttribute('aria-describedby') ?? '').split(' ').filter((d) => d && d !== error.id);
    if (described.length) input.setAttribute('aria-describedby', described.join(' '));
    else input.removeAttribute('aria-describedby');
  }
}

/**
 * Shows problems in the error summary (each linked to its field) and next to their fields, then moves focus
 * to the summary so keyboard and screen-reader users land on it.
 */
export function showErrors(problems) {
  clearErrors();
  const list = byId('error-list');
  for (const p of problems) {
    const input = p.fieldId ? byId(p.fieldId) : null;
    if (input) {
      const error = byId(`${p.fieldId}-error`);
      if (error) {
        error.textContent = p.message;
        error.hidden = false;
        const described = (input.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean);
        input.setAttribute('aria-describedby', [error.id, ...described].join(' '));
      }
      input.setAttribute('aria-invalid', 'true');
      const link = el('a', { href: `#${p.fieldId}`, text: p.message });
      link.addEventListener('click', (e) => {
        e.preventDefault();
        input.focus();
      });
      list.append(el('li', {}, link));
    } else {
      list.append(el('li', { text: p.message }));
    }
  }
  const summary = byId('error-summary');
  summary.hidden = false;
  summary.focus();
}

/** The buyer-facing message for an API error: the catalog's text for its code, else the API's own message. */
export function errorMessage(err) {
  if (!(err instanceof ApiError)) return t('errors.generic');
  const left = err.details?.attemptsLeft;
  if (err.code === 'verification_code_invalid' && typeof left === 'number')
    return t('errors.verification_code_invalid_left', { count: left });
  if (has(`errors.${err.code}`)) return t(`errors.${err.code}`);
  return err.message || t('errors.generic');
}

/**
 * Runs `work` for a form: ignores repeated submits while busy (the button stays focusable: aria-disabled,
 * not disabled), and shows validation or API errors; `fields` maps API error codes to the field they concern.
 * It never rejects (every error is shown on the page), so an event handler may `void run(...)` detached.
 */
export async function run(button, work, fields = {}) {
  if (button.getAttribute('aria-disabled') === 'true') return undefined;
  button.setAttribute('aria-disabled', 'true');
  button.setAttribute('aria-busy', 'true');
  try {
    clearErrors();
    return await work();
  } catch (err) {
    if (err instanceof ValidationError) showErrors(err.problems);
    else showErrors([{ fieldId: err instanceof ApiError ? fields[err.code] : undefined, message: errorMessage(err) }]);
    return undefined;
  } finally {
    button.removeAttribute('aria-disabled');
    button.removeAttribute('aria-busy');
  }
}

/** Per dialog: its latest opening, settled once that opening's `close` event was handled. */
const openings = new WeakMap();

/**
 * Opens a modal confirmation dialog; resolves true when confirmed. Focus returns to where it was.
 *
 * A dialog's `close` event is dispatched a task after it closed. An opening waits for the last one's: otherwise a
 * buyer who pressed Escape and then Enter on the button at once reopened it before that event, which then answered
 * the new opening "no" while it stayed open, and its Discard did nothing.
 */
export function confirmDialog(id, { title, body }) {
  const dialog = byId(id);
  const open = () =>
    new Promise((resolve) => {
      const back = document.activeElement;
      byId(`${id}-title`).textContent = title;
      byId(`${id}-body`).textContent = body;
      dialog.returnValue = '';
      dialog.showModal();
      dialog.addEventListener(
        'close',
        () => {
          if (back instanceof HTMLElement && back.isConnected) back.focus();
          resolve(dialog.returnValue === 'confirm');
        },
        { once: true },
      );
    });
  const last = openings.get(dialog);
  const opening = last ? last.then(open, open) : open();
  openings.set(dialog, opening);
  return opening;
}

const digitsOf = (currency) =>
  new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;

/** Minor units as a localized amount, e.g. 15000 EUR → "€150.00". */
export function formatMoney(minor, currency) {
  const digits = digitsOf(currency);
  return new Intl.NumberFormat(lang(), { style: 'currency', currency }).format(minor / 10 ** digits);
}

/**
 * A typed amount in minor units, or null when it is not a positive amount. Both marks are read the way the
 * page's language writes them: "1,500.50" in English, "1.500,50" in German, "1 500,50" in French. The last mark,
 * followed by at most the currency's digits, is the decimal one; a mark followed by three digits groups
 * thousands unless it is the language's decimal mark ("1.500" is 1500 in German, refused in English).
 */
export function parseMoney(text, currency) {
  const digits = digitsOf(currency);
  const decimalMark = new Intl.NumberFormat(lang()).formatToParts(1.5).find((p) => p.type === 'decimal')?.value ?? '.';
  const s = String(text)
    .trim()
    .replace(/[\s\u00a0\u202f'’]/g, '');
  const m = /^(\d+(?:[.,]\d+)*?)(?:([.,])(\d+))?$/.exec(s);
  if (!m) return null;
  let [, whole, mark, frac = ''] = m;
  if (mark && frac.length === 3 && mark !== decimalMark) {
    whole = `${whole}${mark}${frac}`;
    mark = undefined;
    frac = '';
  }
  if (mark && (frac.length === 0 || frac.length > digits)) return null;
  const group = /[.,]/.exec(whole)?.[0];
  if (group) {
    const grouped = group === '.' ? /^\d{1,3}(\.\d{3})+$/ : /^\d{1,3}(,\d{3})+$/;
    if (group === mark || !grouped.test(whole)) return null;
    whole = whole.replaceAll(group, '');
  }
  const minor = Number(whole) * 10 ** digits + Number(frac.padEnd(digits, '0') || 0);
  return minor > 0 && Number.isSafeInteger(minor) ? minor : null;
}

/** An RFC 3339 time as a localized date. */
export function formatDate(iso) {
  return new Intl.DateTimeFormat(lang(), { dateStyle: 'medium' }).format(new Date(iso));
}

/** Fills the `[data-currency]` slots of labels with " (EUR)". */
export function showCurrency(root, currency) {
  for (const slot of root.querySelectorAll('[data-currency]'))
    slot.textContent = currency ? t('common.inCurrency', { currency }) : '';
}
