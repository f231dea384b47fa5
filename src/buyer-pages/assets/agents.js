// The agents page: lists the buyer's agents (pause, resume, delete), creates one after the emailed code and
// shows its issued credential exactly once.
import { api, current } from './api.js';
import { codeStep } from './code-step.js';
import { t } from './i18n.js';
import {
  byId,
  confirmDialog,
  el,
  errorMessage,
  formatDate,
  run,
  setStatus,
  showErrors,
  ValidationError,
} from './ui.js';

export async function init() {
  const s = current();
  if (!s) return;
  const full = s.mode === 'full';
  const rows = byId('agents-rows');

  async function refresh(focusAfter) {
    const { agents } = await api('GET', '/v1/buyer/agents');
    byId('agents-empty').hidden = agents.length > 0;
    byId('agents-table').hidden = agents.length === 0;
    rows.replaceChildren(...agents.map(row));
    if (focusAfter) (byId(focusAfter) ?? byId('agents-list-title')).focus();
  }

  function row(agent) {
    const actions = el('td', { className: 'actions' });
    if (full) {
      const toggle = agent.status === 'paused' ? 'resume' : 'pause';
      actions.append(
        button(
          `${toggle}-${agent.id}`,
          t(`agents.${toggle}`),
          t(`agents.${toggle}Named`, { name: agent.name }),
          'secondary',
          () => setStatusOf(agent, toggle),
        ),
        ' ',
        button(`delete-${agent.id}`, t('agents.delete'), t('agents.deleteNamed', { name: agent.name }), 'danger', () =>
          remove(agent),
        ),
      );
    }
    const credential =
      agent.credential === 'issued'
        ? t('agents.credentialIssued', { prefix: agent.tokenPrefix ?? '' })
        : t('agents.credentialKey');
    return el(
      'tr',
      {},
      el('th', { scope: 'row', text: agent.name }),
      el('td', {}, el('span', { className: `badge badge-${agent.status}`, text: t(`status.${agent.status}`) })),
      el('td', { text: credential }),
      el('td', { text: formatDate(agent.createdAt) }),
      actions,
    );
  }

  function button(id, text, label, className, onClick) {
    const b = el('button', { type: 'button', id, className, 'aria-label': label, text });
    b.addEventListener('click', () => run(b, onClick));
    return b;
  }

  async function setStatusOf(agent, action) {
    await api('POST', `/v1/buyer/agents/${encodeURIComponent(agent.id)}/${action}`);
    await refresh(`${action === 'pause' ? 'resume' : 'pause'}-${agent.id}`);
    setStatus(t(action === 'pause' ? 'agents.paused' : 'agents.resumed', { name: agent.name }));
  }

  async function remove(agent) {
    const ok = await confirmDialog('confirm-delete', {
      title: t('agents.confirmDeleteTitle', { name: agent.name }),
      body: t('agents.confirmDeleteBody'),
    });
    if (!ok) return;
    await api('DELETE', `/v1/buyer/agents/${encodeURIComponent(agent.id)}`);
    await refresh('agents-list-title');
    setStatus(t('agents.deleted', { name: agent.name }));
  }

  byId('agents-list-title').setAttribute('tabindex', '-1');
  if (full) wireCreate(refresh);
  try {
    await refresh();
  } catch (err) {
    showErrors([{ message: errorMessage(err) }]);
  }
}

/** The create form, the emailed code, and the one-time credential panel. */
function wireCreate(refresh) {
  const form = byId('create-agent-form');
  const name = byId('agent-name');
  const submit = form.querySelector('button[type="submit"]');
  const code = codeStep(form, 'agent', 'create_agent');
  const panel = byId('new-credential');
  const value = byId('new-credential-value');

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void run(
      submit,
      async () => {
        const agentName = name.value.trim();
        if (!agentName) throw new ValidationError([{ fieldId: 'agent-name', message: t('agents.nameMissing') }]);
        if (code.pending) return code.request();
        const created = await api('POST', '/v1/buyer/agents', { name: agentName, ...code.proof() });
        code.reset();
        form.reset();
        await refresh();
        setStatus(t('agents.created', { name: created.agent.name }));
        if (created.token) {
          byId('new-credential-label').textContent = t('agents.credentialLabel', { name: created.agent.name });
          value.value = created.token;
          panel.hidden = false;
          panel.focus();
        }
      },
      { ...code.fields, invalid_input: 'agent-name' },
    );
  });

  // The copy never rejects: a refused clipboard selects the value for the buyer to copy and says so.
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value.value);
      setStatus(t('agents.copied'));
    } catch {
      value.focus();
      value.select();
      setStatus(t('agents.copyFailed'));
    }
  };
  byId('copy-credential').addEventListener('click', () => void copy());
  byId('dismiss-credential').addEventListener('click', () => {
    value.value = '';
    panel.hidden = true;
    byId('agents-list-title').focus();
  });
}
