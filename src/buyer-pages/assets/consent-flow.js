// The consent view's shared state and protocol side: the partner window and origin, posting events, the setup's
// state, the server-side draft, and moving between steps (docs/embedding.md).
import { api, sendKeepalive } from './api.js';
import { byId } from './ui.js';

export const SOURCE = 'tessera-consent';

export const main = byId('main');
export const origin = main.dataset.origin ?? null;
export const popup = main.dataset.mode === 'popup';
export const partner = popup ? window.opener : window.parent !== window ? window.parent : null;

/** Posts an event to the partner page, to its exact origin only. */
export function post(type, payload = {}) {
  if (!origin || !partner) return;
  partner.postMessage({ source: SOURCE, version: 1, type, ...payload }, origin);
}

// The state of the setup: what a draft keeps.
export const state = { step: null, agentId: null, agentName: null, instrumentId: null, cardName: null, limits: {} };
/** `started` once the buyer is verified (drafts are saved from then on); `finished` once granted or discarded. */
export const flow = { started: false, finished: false };

function draftBody() {
  return { step: state.step, agentId: state.agentId, instrumentId: state.instrumentId, limits: state.limits };
}

/** Keeps the setup as a draft on the server (one day); `keepalive` when the frame is going away. */
export async function saveDraft(keepalive = false) {
  if (!flow.started || flow.finished || !['agent', 'card', 'limits'].includes(state.step)) return;
  if (keepalive) {
    sendKeepalive('PUT', '/v1/buyer/consent-draft', draftBody());
    return;
  }
  try {
    await api('PUT', '/v1/buyer/consent-draft', draftBody());
  } catch {
    /* a draft that cannot be saved is not worth interrupting the buyer for */
  }
}

export function show(stepId, { focus = true } = {}) {
  for (const s of document.querySelectorAll('.consent-step')) s.hidden = s.id !== `step-${stepId}`;
  state.step = stepId;
  if (focus) byId(`step-${stepId}-title`).focus();
  void saveDraft();
}
