// The sign-in page: asks the API to e-mail a magic link (for the shop in `?merchantId=`, in the page's language).
import { api } from './api.js';
import { t } from './i18n.js';
import { byId, run, ValidationError } from './ui.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function init({ main }) {
  // A link to this page carrying `#token=` is a magic link: hand it to the landing page.
  if (/(^#|&)token=/.test(location.hash)) {
    location.replace(`/buyer/verify${location.search}${location.hash}`);
    return;
  }
  const form = byId('sign-in-form');
  const email = byId('email');
  const submit = form.querySelector('button[type="submit"]');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void run(
      submit,
      async () => {
        const address = email.value.trim();
        if (!address) throw new ValidationError([{ fieldId: 'email', message: t('signIn.emailMissing') }]);
        if (!EMAIL.test(address)) throw new ValidationError([{ fieldId: 'email', message: t('signIn.emailInvalid') }]);
        const body = { email: address, lang: main.dataset.lang };
        if (form.dataset.merchantId) body.merchantId = form.dataset.merchantId;
        await api('POST', '/v1/buyer/sign-in-links', body);
        const sent = byId('sign-in-sent');
        byId('sign-in-sent-text').textContent = t('signIn.sent', { email: address });
        sent.hidden = false;
        sent.focus();
      },
      { invalid_input: 'email' },
    );
  });
}
