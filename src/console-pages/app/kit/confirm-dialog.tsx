/**
 * A modal confirmation (the native <dialog>, so focus is trapped and Escape cancels): it says what will happen,
 * its confirm button is styled as danger for destructive actions, and the action's outcome is announced inside it.
 * Focus returns to the element that opened it.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { t } from '../i18n.ts';
import { Feedback, useAction } from './feedback.tsx';

export interface ConfirmDialogProps {
  /** Shown while true; set it false in `onClose`. */
  open: boolean;
  /** An id for the dialog (its title is `<id>-title`). */
  id: string;
  title: string;
  /** What will happen, in full (the amount of a refund, what happens to sold tickets). */
  children: ComponentChildren;
  /** The confirm button's text, e.g. "Cancel the event". */
  confirmLabel: string;
  /** Styles the confirm button as danger (every destructive action). */
  danger?: boolean;
  /** Runs on confirm; its string is announced, then the dialog closes. A failure stays shown in the dialog. */
  onConfirm: () => Promise<string | void>;
  /** Called when the dialog closes (confirmed or not), with whether the action succeeded. */
  onClose: (done: boolean, message: string) => void;
}

export function ConfirmDialog(p: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<Element | null>(null);
  const action = useAction();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (p.open && !dialog.open) {
      opener.current = document.activeElement;
      action.clear();
      dialog.showModal();
    } else if (!p.open && dialog.open) dialog.close();
  }, [p.open]);
  const close = (done: boolean, message = '') => {
    ref.current?.close();
    const back = opener.current;
    if (back instanceof HTMLElement && back.isConnected) back.focus();
    p.onClose(done, message);
  };
  return (
    <dialog ref={ref} id={p.id} class="confirm" aria-labelledby={`${p.id}-title`} onCancel={() => close(false)}>
      <h2 id={`${p.id}-title`}>{p.title}</h2>
      <div class="confirm-body">{p.children}</div>
      <div class="confirm-actions">
        <button
          type="button"
          class={p.danger ? 'danger' : 'primary'}
          aria-busy={action.busy ? 'true' : undefined}
          onClick={() => {
            let message = '';
            void action
              .run(async () => {
                message = (await p.onConfirm()) ?? '';
                return message;
              })
              .then((ok) => {
                if (ok) close(true, message);
              });
          }}
        >
          {p.confirmLabel}
        </button>
        {/* Focus starts on the way back, so a stray Enter never confirms a destructive action. */}
        <button type="button" class="secondary" autofocus onClick={() => close(false)}>
          {t('kit.dialog.keep')}
        </button>
      </div>
      <Feedback of={action} />
    </dialog>
  );
}
