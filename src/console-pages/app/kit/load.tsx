/**
 * Loading a view's data: `useLoad(fetch, deps)` runs `fetch` when `deps` change and on `reload()`, keeping the last
 * data while it reloads; `<Loaded of={load}>` shows "Loading…" the first time, the error's text (announced) when it
 * fails, else its children.
 */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { errorText } from '../api.ts';
import { t } from '../i18n.ts';

export interface Load<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /** Fetches again; resolves when done (never rejects). */
  reload: () => Promise<void>;
}

export function useLoad<T>(fetch: () => Promise<T>, deps: readonly unknown[]): Load<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const latest = useRef(0);
  const run = useCallback(async () => {
    const mine = ++latest.current;
    setState((s) => ({ ...s, loading: true }));
    try {
      const data = await fetch();
      if (mine === latest.current) setState({ data, error: undefined, loading: false });
    } catch (error) {
      if (mine === latest.current) setState((s) => ({ data: s.data, error, loading: false }));
    }
  }, deps);
  useEffect(() => {
    void run();
  }, [run]);
  return { ...state, reload: run };
}

/** Shows `children(data)` once loaded; "Loading…" before; the failure's text (a live region) if it failed. */
export function Loaded<T>(props: { of: Load<T>; children: (data: T) => ComponentChildren }) {
  const { data, error, loading } = props.of;
  return (
    <>
      <p role="status" aria-live="polite" class={error ? 'feedback feedback-error' : 'feedback'}>
        {error ? errorText(error) : loading && data === undefined ? t('shell.loading') : ''}
      </p>
      {data !== undefined ? props.children(data) : null}
    </>
  );
}
