// The limit-raise page: an agent reached its limit and asks the buyer for more (MCP URL elicitation). Signed out, the
// buyer asks for a sign-in link that comes back here; signed in, the page shows the request and approves it with the
// emailed code (grant_permission, as any widening of an agent's authority) or declines it.
import { api, current } from './api.js';
import { codeStep } from './code-step.js';
import { emailLinkForm } from './email-link-form.js';
import { t } from './i18n.js';
import { byId, errorMessage, formatMoney, run, setStatus, showErrors } from './ui.js';

const ID = /^lrr_[0-9a-z]{10,40}$/;

export async function init({ main }) {
  const id = new URLSearchParams(location.search).get('request') ?? '';
  if (!ID.test(id)) {
    byId('limit-raise-missing').hidden = false;
    return;
  }
  const s = current();
  if (!s || s.mode !== 'full') return signInStep(id, main);
  let request;
  try {
    request = await api('GET', `/v1/buyer/limit-raises/${encodeURIComponent(id)}`);
  } catch (err) {
    showErrors([{ message: errorMessage(err) }]);
    return;
  }
  show(request);
  if (request.status === 'pending') wireAnswer(request);
}

/** Signed out: the e-mail address only; the link's landing page comes back to this request (`limitRaise`). */
function signInStep(id, main) {
  byId('limit-raise-sign-in').hidden = false;
  const ids = { form: 'limit-raise-sign-in-form', email: 'limit-raise-email', sent: 'limit-raise-sent' };
  emailLinkForm(main, { ...ids, sentText: 'limit-raise-sent-text' }, 'signIn.sent', () => ({ limitRaise: id }));
}

/** What the agent asks for: the amount it needs, the limits now and the ones an approval sets. */
function show(r) {
  const money = (minor) => formatMoney(minor, r.currency);
  const agent = r.agentName ?? t('permissions.deletedAgent');
  byId('limit-raise-request').hidden = false;
  byId('limit-raise-request-title').textContent = t('limitRaise.heading', { agent, shop: r.shopName ?? r.merchantId });
  byId('limit-raise-need').textContent = t('limitRaise.need', { agent, amount: money(r.amountMinor) });
  byId('limit-raise-per-purchase').textContent = t('limitRaise.perPurchase', {
    from: money(r.perPurchaseCapMinor),
    to: money(r.proposedPerPurchaseCapMinor),
  });
  byId('limit-raise-allowance').textContent = t('limitRaise.allowance', {
    from: money(r.allowanceMinor),
    to: money(r.proposedAllowanceMinor),
  });
  const state = byId('limit-raise-state');
  state.hidden = r.status === 'pending';
  state.textContent = r.status === 'pending' ? '' : t(`limitRaise.${r.status}`);
  byId('limit-raise-form').hidden = r.status !== 'pending';
}

/** Approve (first submit e-mails the code, the next sends it) or decline; either answers the request once. */
function wireAnswer(r) {
  const form = byId('limit-raise-form');
  const submit = form.querySelector('button[type="submit"]');
  const decline = byId('limit-raise-decline');
  const code = codeStep(form, 'limit-raise', 'grant_permission');
  const answered = (after) => {
    show(after);
    setStatus(t(`limitRaise.${after.status}`));
    byId('limit-raise-state').focus();
  };
  const path = `/v1/buyer/limit-raises/${encodeURIComponent(r.id)}`;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void run(
      submit,
      async () => {
        if (code.pending) return code.request();
        answered(await api('POST', `${path}/approve`, { ...code.proof() }));
      },
      code.fields,
    );
  });
  decline.addEventListener(
    'click',
    () => void run(decline, async () => answered(await api('POST', `${path}/decline`, {}))),
  );
}
