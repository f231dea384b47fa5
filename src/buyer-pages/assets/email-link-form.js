// The e-mail step every signed-out page shares: checks the address, asks the API to e-mail a sign-in link (with what
// the link's landing page needs to come back), and says where it went.
import { api } from './api.js';
import { t } from './i18n.js';
import { byId, run, ValidationError } from './ui.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Wires the form `ids.form` (address in `ids.email`) to POST /v1/buyer/sign-in-links with `extra()` added to the
 * body; on success `ids.sentText` says `sentKey` and `ids.sent` is shown and focused.
 */
export function emailLinkForm(main, ids, sentKey, extra = () => ({})) {
  const form = byId(ids.form);
  const submit = form.querySelector('button[type="submit"]');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void run(
      submit,
      async () => {
        const address = byId(ids.email).value.trim();
        if (!address) throw new ValidationError([{ fieldId: ids.email, message: t('signIn.emailMissing') }]);
        if (!EMAIL.test(address))
          throw new ValidationError([{ fieldId: ids.email, message: t('signIn.emailInvalid') }]);
        await api('POST', '/v1/buyer/sign-in-links', { email: address, lang: main.dataset.lang, ...extra(form) });
        const sent = byId(ids.sent);
        byId(ids.sentText).textContent = t(sentKey, { email: address });
        sent.hidden = false;
        sent.focus();
      },
      { invalid_input: ids.email },
    );
  });
}
