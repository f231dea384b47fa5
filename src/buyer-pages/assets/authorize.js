// The authorize step of an MCP client's OAuth request: sign in by e-mail for a shop (the link comes back here), then
// name the agent, pick a saved card and set limits; the agent and its permission are created with the emailed codes
// (create_agent, grant_permission), and the permission is handed to the client through /oauth/interaction/…/complete.
import { api, current } from './api.js';
import { codeStep } from './code-step.js';
import { t } from './i18n.js';
import { byId, el, formatMoney, parseMoney, run, setStatus, showCurrency, showErrors, errorMessage, ValidationError } from './ui.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const UID = /^[A-Za-z0-9_-]{8,64}$/;

function isoDate(d) {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** Finishes (or declines) the authorization: the server answers where the browser goes next (back to the client). */
async function finish(uid, outcome, body = {}) {
  const answer = await api('POST', `/oauth/interaction/${encodeURIComponent(uid)}/${outcome}`, body, { withCookies: true });
  location.assign(answer.redirectTo);
}

export async function init({ main }) {
  const uid = new URLSearchParams(location.search).get('interaction') ?? '';
  if (!UID.test(uid)) {
    byId('authorize-missing').hidden = false;
    return;
  }
  // Who is asking: the application's registered name and where the browser returns (a phishing client shows here).
  try {
    const who = await api('GET', `/oauth/interaction/${encodeURIComponent(uid)}/details`, undefined, { withCookies: true });
    const client = byId('authorize-client');
    client.textContent = t('authorize.client', { client: who.clientName, origin: who.redirectOrigin });
    client.hidden = false;
  } catch (err) {
    showErrors([{ message: errorMessage(err) }]);
    return;
  }
  const s = current();
  if (!s || s.mode !== 'full' || !s.merchantId) return signInStep(uid, main);
  return grantStep(uid, s);
}

async function signInStep(uid, main) {
  byId('authorize-sign-in').hidden = false;
  const form = byId('authorize-sign-in-form');
  const submit = form.querySelector('button[type="submit"]');
  try {
    const { shops } = await api('GET', '/v1/discovery/shops?limit=100');
    byId('authorize-shop').replaceChildren(...shops.map((shop) => el('option', { value: shop.id, text: shop.name })));
  } catch (err) {
    showErrors([{ message: errorMessage(err) }]);
  }
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    run(
      submit,
      async () => {
        const address = byId('authorize-email').value.trim();
        if (!address) throw new ValidationError([{ fieldId: 'authorize-email', message: t('signIn.emailMissing') }]);
        if (!EMAIL.test(address)) throw new ValidationError([{ fieldId: 'authorize-email', message: t('signIn.emailInvalid') }]);
        const merchantId = byId('authorize-shop').value;
        if (!merchantId) throw new ValidationError([{ fieldId: 'authorize-shop', message: t('authorize.shopMissing') }]);
        await api('POST', '/v1/buyer/sign-in-links', { email: address, merchantId, lang: main.dataset.lang, authorization: uid });
        const sent = byId('authorize-sent');
        byId('authorize-sent-text').textContent = t('authorize.sent', { email: address });
        sent.hidden = false;
        sent.focus();
      },
      { invalid_input: 'authorize-email', not_found: 'authorize-shop' },
    );
  });
}

async function grantStep(uid, s) {
  byId('authorize-grant').hidden = false;
  const currency = s.shop?.currency ?? 'EUR';
  showCurrency(byId('main'), currency);
  byId('authorize-for-shop').textContent = t('authorize.forShop', { shop: s.shop?.name ?? s.merchantId, email: s.email });
  const { instruments } = await api('GET', '/v1/buyer/instruments');
  const usable = instruments.filter((c) => c.merchantId === s.merchantId);
  const cardText = (c) => t('cards.cardLabel', { scheme: c.scheme.charAt(0).toUpperCase() + c.scheme.slice(1), last4: c.last4 });
  byId('authorize-card').replaceChildren(...usable.map((c) => el('option', { value: c.id, text: `${cardText(c)} (${formatMoney(c.spendingCapMinor, c.currency)})` })));
  byId('authorize-need-card').hidden = usable.length > 0;
  const form = byId('authorize-form');
  form.hidden = usable.length === 0;
  const submit = byId('authorize-submit');
  const agentCode = codeStep(form, 'authorize-agent', 'create_agent');
  const grantCode = codeStep(form, 'authorize-grant', 'grant_permission');
  const expires = byId('authorize-expires');
  expires.min = isoDate(new Date(Date.now() + 86_400_000));
  expires.value = isoDate(new Date(Date.now() + 30 * 86_400_000));
  let agentId = null;

  byId('authorize-decline').addEventListener('click', () =>
    run(byId('authorize-decline'), async () => {
      await finish(uid, 'abort');
    }),
  );

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    run(
      submit,
      async () => {
        const problems = [];
        const name = byId('authorize-agent-name').value.trim();
        if (!name) problems.push({ fieldId: 'authorize-agent-name', message: t('agents.nameMissing') });
        const amount = (id) => {
          const value = byId(id).value;
          const minor = parseMoney(value, currency);
          if (minor === null) problems.push({ fieldId: id, message: value.trim() ? t('permissions.amountInvalid') : t('permissions.amountMissing') });
          return minor;
        };
        const perPurchaseCapMinor = amount('authorize-per-purchase');
        const allowanceMinor = amount('authorize-allowance');
        if (perPurchaseCapMinor !== null && allowanceMinor !== null && allowanceMinor < perPurchaseCapMinor) {
          problems.push({ fieldId: 'authorize-allowance', message: t('permissions.allowanceTooSmall') });
        }
        const [y, m, d] = expires.value.split('-').map(Number);
        const end = y && m && d ? new Date(y, m - 1, d, 23, 59, 59) : null;
        if (!end || end.getTime() <= Date.now()) problems.push({ fieldId: 'authorize-expires', message: t('permissions.expiresInvalid') });
        if (problems.length) throw new ValidationError(problems);
        // First code: the agent. Second code: its permission (each operation is confirmed on its own, as on the other pages).
        if (!agentId) {
          if (agentCode.pending) return agentCode.request();
          const created = await api('POST', '/v1/buyer/agents', { name, ...agentCode.proof() });
          agentId = created.agent.id;
          agentCode.reset();
          byId('authorize-agent-name').readOnly = true;
          return grantCode.request();
        }
        if (grantCode.pending) return grantCode.request();
        const permission = await api('POST', '/v1/buyer/permissions', {
          agentId,
          instrumentId: byId('authorize-card').value,
          perPurchaseCapMinor,
          allowanceMinor,
          windowHours: Number(byId('authorize-window').value),
          expiresAt: end.toISOString(),
          ...grantCode.proof(),
        });
        setStatus(t('authorize.done'));
        await finish(uid, 'complete', { permissionId: permission.id });
      },
      {
        ...(agentId ? grantCode.fields : agentCode.fields),
        instrument_provider_mismatch: 'authorize-card',
        instrument_not_found: 'authorize-card',
      },
    );
  });
}
