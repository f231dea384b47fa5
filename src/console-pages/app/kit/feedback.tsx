/**
 * Feedback next to the action: `useAction()` runs an action (busy while it runs, a second press ignored), and
 * `<Feedback of={action} />`, placed beside the button, announces its outcome in a live region that is always in the
 * page (a region added together with its text is not announced).
 */
import { useCallback, useRef, useState } from 'preact/hooks';
import { errorText } from '../api.ts';

export interface ActionState {
  busy: boolean;
  /** The last outcome's text, and whether it failed. */
  message: string;
  failed: boolean;
  /** The last error (for field errors: `fieldOf(action.error, ...)`). */
  error: unknown;
}

export interface Action extends ActionState {
  /**
   * Runs `work`; its resolved string is announced as success (none: nothing is announced). A rejection is announced as
   * the error's text (`errorText`). Never rejects. Returns whether it succeeded.
   */
  run(work: () => Promise<string | void>): Promise<boolean>;
  /** Clears the message. */
  clear(): void;
}

export function useAction(): Action {
  const [state, setState] = useState<ActionState>({ busy: false, message: '', failed: false, error: undefined });
  const running = useRef(false);
  const run = useCallback(async (work: () => Promise<string | void>) => {
    if (running.current) return false;
    running.current = true;
    setState({ busy: true, message: '', failed: false, error: undefined });
    try {
      const message = await work();
      setState({ busy: false, message: message ?? '', failed: false, error: undefined });
      return true;
    } catch (error) {
      setState({ busy: false, message: errorText(error), failed: true, error });
      return false;
    } finally {
      running.current = false;
    }
  }, []);
  const clear = useCallback(() => setState((s) => ({ ...s, message: '', failed: false, error: undefined })), []);
  return { ...state, run, clear };
}

/** The live region of an action; `id` lets a button point at it (`aria-describedby`). */
export function Feedback(props: { of: ActionState; id?: string }) {
  const { message, failed } = props.of;
  return (
    <p id={props.id} class={failed ? 'feedback feedback-error' : 'feedback'} role="status" aria-live="polite">
      {message}
    </p>
  );
}
