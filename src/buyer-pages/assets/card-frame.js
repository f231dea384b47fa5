// The payment provider's hosted card form in an <iframe>, shared by the Saved cards page and the authorize page:
// starts (or resumes) a card setup for the session's shop, frames its form, accepts the form's payment method only
// from the form's origin and frame, and completes the setup. The card number is typed inside the frame only.
import { api } from './api.js';
import { t } from './i18n.js';
import { el, run, setStatus } from './ui.js';

/** The hosted form's message type (the sandbox provider's contract). */
const FORM_MESSAGE = 'sandbox.payment_method';

/**
 * Wires the form into `holder` (hidden until framed). `button` shows progress and errors of the setup calls;
 * `onReady(setup)` runs once the setup succeeded (the frame is closed by then).
 */
export function cardFrame({ holder, button, onReady }) {
  let setup = null;
  let frame = null;
  let onMessage = null;

  const close = () => {
    if (onMessage) window.removeEventListener('message', onMessage);
    onMessage = null;
    frame?.remove();
    frame = null;
    holder.hidden = true;
  };

  const ready = (done) => {
    setup = done;
    close();
    onReady(done);
  };

  const open = () => {
    close();
    const origin = new URL(setup.formUrl, location.href).origin;
    frame = el('iframe', {
      src: setup.formUrl,
      title: t('cards.frameTitle'),
      className: 'provider-frame',
      referrerpolicy: 'no-referrer',
    });
    onMessage = (event) => {
      // Only the framed provider form may answer, and only with its payment-method message.
      if (event.origin !== origin || !frame || event.source !== frame.contentWindow) return;
      const data = event.data;
      if (!data || data.type !== FORM_MESSAGE || typeof data.paymentMethod !== 'string') return;
      setStatus(t('cards.checking'));
      void run(button, async () => {
        ready(
          await api('POST', `/v1/buyer/card-setups/${encodeURIComponent(setup.setupId)}/complete`, {
            paymentMethod: data.paymentMethod,
          }),
        );
      });
    };
    window.addEventListener('message', onMessage);
    holder.append(frame);
    holder.hidden = false;
    frame.focus();
  };

  return {
    /** The current setup (null before `start`). */
    get setup() {
      return setup;
    },
    /** Starts a setup (or resumes the buyer's open one: a succeeded one is ready at once) and frames its form. */
    async start() {
      setup = await api('POST', '/v1/buyer/card-setups');
      if (setup.status === 'succeeded') ready(setup);
      else open();
    },
    /** Drops the current setup (it is never resumed) and frames the form of a new one. */
    async another() {
      if (setup) await api('POST', `/v1/buyer/card-setups/${encodeURIComponent(setup.setupId)}/discard`, {});
      setup = null;
      setup = await api('POST', '/v1/buyer/card-setups');
      open();
      setStatus(t('cards.anotherCard'));
    },
    /** Forgets the setup once its card was saved. */
    forget() {
      setup = null;
    },
    close,
  };
}
