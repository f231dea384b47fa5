// The sign-in page: asks the API to e-mail a magic link (for the shop in `?merchantId=`, in the page's language).
import { emailLinkForm } from './email-link-form.js';

const OFFER = /^rsv_[0-9a-z]{10,40}$/;

export function init({ main }) {
  // A link to this page carrying `#token=` is a magic link: hand it to the landing page.
  if (/(^#|&)token=/.test(location.hash)) {
    location.replace(`/buyer/verify${location.search}${location.hash}`);
    return;
  }
  const ids = { form: 'sign-in-form', email: 'email', sent: 'sign-in-sent', sentText: 'sign-in-sent-text' };
  // Reached from a waiting-list offer's page (`?offer=rsv_…`): the link returns to that offer.
  const offer = new URLSearchParams(location.search).get('offer') ?? '';
  emailLinkForm(main, ids, 'signIn.sent', (form) => ({
    ...(form.dataset.merchantId ? { merchantId: form.dataset.merchantId } : {}),
    ...(OFFER.test(offer) ? { offer } : {}),
  }));
}
