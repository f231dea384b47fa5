/** What a list shows when it has nothing: a sentence and, where it helps, the next step. */
import type { ComponentChildren } from 'preact';

export function EmptyState(props: { children: ComponentChildren; action?: ComponentChildren }) {
  return (
    <div class="empty-state">
      <p>{props.children}</p>
      {props.action ?? null}
    </div>
  );
}
