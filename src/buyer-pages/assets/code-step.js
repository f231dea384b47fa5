// The emailed 6-digit code step of a form: the first submit asks the API to e-mail a code and reveals the
// code input; the next submit sends `challengeId` and `code` with the operation.
import { api, current } from './api.js';
import { t } from './i18n.js';
import { byId, clearErrors, run, setStatus, ValidationError } from './ui.js';

/**
 * Wires the code step `<prefix>-code-step` of `form` for one purpose (save_card, create_agent, grant_permission, …).
 * With `skip` (a session minted with attested consent) no code is asked for. `details()`, when given, adds what the
 * code authorizes to the request (`authorization` for authorize_agent: the e-mail names it and the code is bound to
 * it).
 */
export function codeStep(form, prefix, purpose, { skip = false, details } = {}) {
  const step = byId(`${prefix}-code-step`);
  const input = byId(`${prefix}-code`);
  const submit = form.querySelector('button[type="submit"]');
  const resend = step.querySelector('[data-resend]');
  let challengeId = null;

  const label = () => {
    submit.textContent = skip || challengeId ? submit.dataset.final : t('common.continue');
  };

  async function request() {
    const answer = await api(
      'POST',
      '/v1/buyer/verification-codes',
      details ? { purpose, authorization: details() } : { purpose },
    );
    challengeId = answer.challengeId;
    step.hidden = false;
    input.value = '';
    label();
    setStatus(t('code.sent', { email: current()?.email ?? '' }));
    input.focus();
  }

  resend.addEventListener('click', () => void run(resend, request));
  input.addEventListener('input', () => {
    const digits = input.value.replace(/\D/g, '').slice(0, 6);
    if (digits !== input.value) input.value = digits;
  });
  label();

  return {
    /** True while the operation still needs a code to be e-mailed first. */
    get pending() {
      return !skip && challengeId === null;
    },
    request,
    /** The proof to send: `{ challengeId, code }`, `{}` when skipped; throws a ValidationError for a malformed code. */
    proof() {
      if (skip) return {};
      const code = input.value.trim();
      if (!code) throw new ValidationError([{ fieldId: input.id, message: t('code.missing') }]);
      if (!/^\d{6}$/.test(code)) throw new ValidationError([{ fieldId: input.id, message: t('code.format') }]);
      return { challengeId, code };
    },
    /** Back to the first step after the operation succeeded. */
    reset() {
      challengeId = null;
      input.value = '';
      step.hidden = true;
      clearErrors();
      label();
    },
    /** The API error codes that concern the code input. */
    fields: {
      verification_required: input.id,
      verification_code_invalid: input.id,
      verification_code_expired: input.id,
      verification_attempts_exhausted: input.id,
      verification_code_mismatch: input.id,
    },
  };
}
