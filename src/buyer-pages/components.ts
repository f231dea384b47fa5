/** Building blocks of the buyer pages' markup: labelled fields, the emailed-code step, and the signed-out panel. */
import type { Translate } from '../i18n/i18n.ts';
import { html, type Markup } from './html.ts';

export interface FieldOptions {
  id: string;
  /** Text, or markup such as a label with a currency slot. */
  label: string | Markup;
  hint?: string;
  type?: string;
  name?: string;
  autocomplete?: string;
  inputmode?: 'numeric' | 'decimal' | 'email' | 'text';
  required?: boolean;
  /** Extra attributes, already escaped markup (e.g. `maxlength="6"`). */
  attrs?: Markup;
}

/**
 * A labelled input with an optional hint and a (hidden until needed) inline error. The hint is the input's
 * description; the page script adds the error's id to `aria-describedby` and sets `aria-invalid` on failure.
 */
export function field(o: FieldOptions): Markup {
  return html`<div class="field" id="${o.id}-field">
  <label for="${o.id}">${o.label}</label>
  ${o.hint ? html`<p class="hint" id="${o.id}-hint">${o.hint}</p>` : ''}
  <p class="field-error" id="${o.id}-error" hidden></p>
  <input id="${o.id}" name="${o.name ?? o.id}" type="${o.type ?? 'text'}"${o.autocomplete ? html` autocomplete="${o.autocomplete}"` : ''}${
    o.inputmode ? html` inputmode="${o.inputmode}"` : ''
  }${o.required ? html` required aria-required="true"` : ''}${o.hint ? html` aria-describedby="${o.id}-hint"` : ''}${o.attrs ? html` ${o.attrs}` : ''}>
</div>`;
}

/** A labelled select with its options (value, text) and an inline error slot. */
export function selectField(o: {
  id: string;
  label: string | Markup;
  options?: readonly [string, string][];
  hint?: string;
}): Markup {
  return html`<div class="field" id="${o.id}-field">
  <label for="${o.id}">${o.label}</label>
  ${o.hint ? html`<p class="hint" id="${o.id}-hint">${o.hint}</p>` : ''}
  <p class="field-error" id="${o.id}-error" hidden></p>
  <select id="${o.id}" name="${o.id}"${o.hint ? html` aria-describedby="${o.id}-hint"` : ''}>${(o.options ?? []).map(
    ([value, text]) => html`<option value="${value}">${text}</option>`,
  )}</select>
</div>`;
}

/**
 * The emailed 6-digit code step of a form, hidden until a code was requested. The input is numeric on
 * touch keyboards and offers the code from the e-mail/SMS autofill (`autocomplete="one-time-code"`).
 */
export function codeStep(t: Translate, prefix: string): Markup {
  const id = `${prefix}-code`;
  return html`<fieldset class="code-step" id="${id}-step" hidden>
  <legend>${t('code.legend')}</legend>
  <p class="hint" id="${id}-hint">${t('code.hint')}</p>
  <div class="field" id="${id}-field">
    <label for="${id}">${t('code.label')}</label>
    <p class="field-error" id="${id}-error" hidden></p>
    <input id="${id}" name="code" type="text" class="code-input" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]*" maxlength="6" size="7" spellcheck="false" aria-describedby="${id}-hint">
  </div>
  <button type="button" class="link-button" data-resend>${t('code.resend')}</button>
</fieldset>`;
}

/** A label text followed by a slot the page script fills with the shop's currency, e.g. "(EUR)". */
export function withCurrency(label: string): Markup {
  return html`${label}<span class="currency" data-currency></span>`;
}

/** Shown instead of an account page's content when this page holds no session. */
export function signedOutPanel(t: Translate, signInHref: string): Markup {
  return html`<section id="signed-out" class="panel" aria-labelledby="signed-out-title" hidden>
  <h2 id="signed-out-title">${t('common.signedOutTitle')}</h2>
  <p>${t('common.signedOutBody')}</p>
  <p><a class="button" href="${signInHref}">${t('common.signInWithEmail')}</a></p>
</section>`;
}

/** A notice the page script shows for sessions that cannot do everything on the page (bounded, or not for a shop). */
export function notices(t: Translate, signInHref: string): Markup {
  return html`<div id="bounded-notice" class="notice" hidden><p>${t('common.boundedNotice')} <a href="${signInHref}">${t('common.signInWithEmail')}</a></p></div>
<div id="no-shop-notice" class="notice" hidden><p>${t('common.noShopNotice')}</p></div>`;
}

/**
 * A signed-out step's e-mail form (`<prefix>-sign-in-form`, address `<prefix>-email`) and its "link sent" panel
 * (`<prefix>-sent`), in a section `<prefix>-sign-in` headed `title`, hidden until the page script shows it
 * (assets/email-link-form.js wires it).
 */
export function emailLinkSection(t: Translate, prefix: string, title: string): Markup {
  return html`<section id="${prefix}-sign-in" aria-labelledby="${prefix}-sign-in-title" hidden>
  <h2 id="${prefix}-sign-in-title">${title}</h2>
  <form id="${prefix}-sign-in-form" class="stack" novalidate>
    ${field({ id: `${prefix}-email`, label: t('signIn.emailLabel'), hint: t('signIn.emailHint'), type: 'email', autocomplete: 'email', required: true, attrs: html`spellcheck="false" autocapitalize="off"` })}
    <button type="submit">${t('signIn.submit')}</button>
  </form>
  <section id="${prefix}-sent" class="panel" tabindex="-1" aria-labelledby="${prefix}-sent-title" hidden>
    <h2 id="${prefix}-sent-title">${t('signIn.sentTitle')}</h2>
    <p id="${prefix}-sent-text"></p>
  </section>
</section>`;
}
