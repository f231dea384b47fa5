/** A view's heading: the one h1 of the page (focused by the shell on navigation), an intro and the view's actions. */
import type { ComponentChildren } from 'preact';

/** `title` is already translated text; `actions` sit beside it (buttons, links). */
export function PageHeader(props: { title: string; intro?: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <header class="page-header">
      <h1 id="view-title" tabindex={-1}>
        {props.title}
      </h1>
      {props.intro ? <p class="intro">{props.intro}</p> : null}
      {props.actions ? <div class="page-actions">{props.actions}</div> : null}
    </header>
  );
}
