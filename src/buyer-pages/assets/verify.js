// The magic-link landing page: redeems the link's token (from the URL fragment, never sent to the server in
// the request line) for a full session, kept in an HttpOnly cookie (a reload keeps it), and opens the agents page.
import { adopt, api } from './api.js';
import { t } from './i18n.js';
import { byId, errorMessage } from './ui.js';

const OFFER = /^rsv_[0-9a-z]{10,40}$/;

export async function init({ main, navigate }) {
  const token = new URLSearchParams(location.hash.slice(1)).get('token');
  // The token works once: take it out of the address bar and history straight away.
  history.replaceState(null, '', location.pathname + location.search);
  const fail = (message) => {
    byId('verify-working').hidden = true;
    byId('verify-failed-text').textContent = message;
    byId('verify-failed').hidden = false;
    byId('verify-failed-title').setAttribute('tabindex', '-1');
    byId('verify-failed-title').focus();
  };
  if (!token) {
    fail(t('verify.noToken'));
    return;
  }
  try {
    const issued = await api('POST', '/v1/buyer/sessions', { token });
    const s = await adopt(issued.token);
    const lang = s.lang ?? main.dataset.lang;
    // A link asked for while authorizing an MCP client goes back to that authorization (/buyer/authorize).
    const authorization = new URLSearchParams(location.search).get('authorization');
    // A link asked for on a limit-raise page (an agent's request) goes back to that request.
    const limitRaise = new URLSearchParams(location.search).get('limitRaise');
    // A link asked for from a waiting-list offer's page goes back to that offer (only a reservation id, only there).
    const offer = new URLSearchParams(location.search).get('offer');
    const next = authorization
      ? `/buyer/authorize?interaction=${encodeURIComponent(authorization)}&lang=${encodeURIComponent(lang)}`
      : limitRaise
        ? `/buyer/limit-raise?request=${encodeURIComponent(limitRaise)}&lang=${encodeURIComponent(lang)}`
        : offer && OFFER.test(offer)
          ? `/buyer/offer?reservation=${encodeURIComponent(offer)}&lang=${encodeURIComponent(lang)}`
          : `/buyer/agents?lang=${encodeURIComponent(lang)}`;
    await navigate(next, { replace: true, announce: t('verify.success', { email: s.email }) });
  } catch (err) {
    fail(errorMessage(err));
  }
}
