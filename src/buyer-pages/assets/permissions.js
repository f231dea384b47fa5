// The permissions page: lists what each agent may spend (revoke with an optional reason) and grants a new
// permission in the session's shop after the emailed code (or, for attested sessions, within the shop's ceilings).
import { api, current } from './api.js';
import { codeStep } from './code-step.js';
import { readLimits } from './limits-form.js';
import { t } from './i18n.js';
import {
  byId,
  confirmDialog,
  el,
  errorMessage,
  formatDate,
  formatMoney,
  run,
  setStatus,
  showCurrency,
  showErrors,
  ValidationError,
} from './ui.js';

const windowText = (hours) =>
  [24, 168, 720].includes(hours) ? t(`permissions.window${hours}`) : t('permissions.windowHours', { count: hours });
// An attested permission's label is the API's English "Set up by <shop>": said again in the page's language.
const setUpBy = (label) => t('permissions.setUpBy', { shop: label.replace(/^Set up by /, '') });
const cardText = (i) =>
  t('cards.cardLabel', { scheme: i.scheme.charAt(0).toUpperCase() + i.scheme.slice(1), last4: i.last4 });

export async function init() {
  const s = current();
  if (!s) return;
  const currency = s.shop?.currency ?? null;
  if (currency) showCurrency(byId('main'), currency);
  byId('permissions-list-title').setAttribute('tabindex', '-1');
  let agents = [];
  let cards = [];

  async function refresh() {
    const [p, a, c] = await Promise.all([
      api('GET', '/v1/buyer/permissions'),
      api('GET', '/v1/buyer/agents'),
      api('GET', '/v1/buyer/instruments'),
    ]);
    agents = a.agents;
    cards = c.instruments;
    byId('permissions-empty').hidden = p.permissions.length > 0;
    byId('permissions-list').hidden = p.permissions.length === 0;
    byId('permissions-list').replaceChildren(...p.permissions.map(item));
  }

  function item(p) {
    const agent = p.agentName ?? t('permissions.deletedAgent');
    const card = cards.find((c) => c.id === p.instrumentId);
    const money = (minor) => formatMoney(minor, p.currency);
    const article = el(
      'article',
      { className: 'permission', 'aria-labelledby': `perm-${p.id}` },
      el('h3', { id: `perm-${p.id}`, text: agent }),
      el('p', {
        text: t('permissions.summary', {
          agent,
          perPurchase: money(p.perPurchaseCapMinor),
          allowance: money(p.allowanceMinor),
          window: windowText(p.windowHours),
          card: card ? cardText(card) : p.instrumentId,
        }),
      }),
      el('p', { text: t('permissions.spent', { spent: money(p.spentMinor), remaining: money(p.remainingMinor) }) }),
      el(
        'p',
        {},
        el('span', { className: `badge badge-${p.status}`, text: t(`status.${p.status}`) }),
        ' ',
        p.revokedAt
          ? t('permissions.revokedOn', { date: formatDate(p.revokedAt) })
          : t('permissions.expires', { date: formatDate(p.expiresAt) }),
      ),
      p.label ? el('p', { className: 'label', text: p.attested ? setUpBy(p.label) : p.label }) : null,
    );
    if (p.status === 'active') {
      const b = el('button', {
        type: 'button',
        className: 'danger',
        'aria-label': t('permissions.revokeNamed', { agent }),
        text: t('permissions.revoke'),
      });
      b.addEventListener('click', () => run(b, () => revoke(p, agent)));
      article.append(b);
    }
    return el('li', {}, article);
  }

  async function revoke(p, agent) {
    byId('revoke-reason').value = '';
    const ok = await confirmDialog('confirm-revoke', {
      title: t('permissions.confirmRevokeTitle', { agent }),
      body: t('permissions.confirmRevokeBody'),
    });
    if (!ok) return;
    const reason = byId('revoke-reason').value.trim();
    await api('POST', `/v1/buyer/permissions/${encodeURIComponent(p.id)}/revoke`, reason ? { reason } : {});
    await refresh();
    setStatus(t('permissions.revoked', { agent }));
    byId('permissions-list-title').focus();
  }

  try {
    await refresh();
  } catch (err) {
    showErrors([{ message: errorMessage(err) }]);
    return;
  }
  if ((s.mode === 'full' || s.attested) && s.merchantId && currency)
    wireGrant(s, currency, () => ({ agents, cards }), refresh);
}

function isoDate(d) {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** The grant form: agent and card choices, limits, the end date and the emailed code. */
function wireGrant(s, currency, lists, refresh) {
  const form = byId('grant-form');
  const submit = form.querySelector('button[type="submit"]');
  const code = codeStep(form, 'grant', 'grant_permission', { skip: s.mode !== 'full' });
  const expires = byId('grant-expires');

  const fill = () => {
    const { agents, cards } = lists();
    const usable = cards.filter((c) => c.merchantId === s.merchantId);
    byId('grant-agent').replaceChildren(...agents.map((a) => el('option', { value: a.id, text: a.name })));
    byId('grant-card').replaceChildren(
      ...usable.map((c) =>
        el('option', { value: c.id, text: `${cardText(c)} (${formatMoney(c.spendingCapMinor, c.currency)})` }),
      ),
    );
    byId('grant-need-agent').hidden = agents.length > 0;
    byId('grant-need-card').hidden = usable.length > 0;
    form.hidden = agents.length === 0 || usable.length === 0;
  };
  const tomorrow = new Date(Date.now() + 86_400_000);
  expires.min = isoDate(tomorrow);
  const resetDate = () => {
    expires.value = isoDate(new Date(Date.now() + 30 * 86_400_000));
  };
  resetDate();
  fill();

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void run(
      submit,
      async () => {
        const problems = [];
        const { perPurchaseCapMinor, allowanceMinor, end } = readLimits('grant', currency, problems);
        if (problems.length) throw new ValidationError(problems);
        if (code.pending) return code.request();
        const agentSelect = byId('grant-agent');
        const granted = await api('POST', '/v1/buyer/permissions', {
          agentId: agentSelect.value,
          instrumentId: byId('grant-card').value,
          perPurchaseCapMinor,
          allowanceMinor,
          windowHours: Number(byId('grant-window').value),
          expiresAt: end.toISOString(),
          ...code.proof(),
        });
        const agent = agentSelect.selectedOptions[0]?.textContent ?? granted.agentId;
        code.reset();
        form.reset();
        resetDate();
        await refresh();
        fill();
        setStatus(t('permissions.granted', { agent }));
        byId('permissions-list-title').focus();
      },
      {
        ...code.fields,
        instrument_provider_mismatch: 'grant-card',
        instrument_not_found: 'grant-card',
        attestation_ceiling_exceeded: 'grant-per-purchase',
      },
    );
  });
}
