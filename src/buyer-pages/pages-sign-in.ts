/** The sign-in page (asks for a magic link) and the magic-link landing page (redeems it for a full session). */
import { field } from './components.ts';
import { html } from './html.ts';
import type { PageDefinition } from './layout.ts';

export const signInPage: PageDefinition = {
  id: 'sign-in',
  path: '/buyer/sign-in',
  titleKey: 'signIn.title',
  body({ t, merchantId }) {
    return html`<p class="intro">${t('signIn.intro')}</p>
<form id="sign-in-form" class="stack" novalidate${merchantId ? html` data-merchant-id="${merchantId}"` : ''}>
  ${field({ id: 'email', label: t('signIn.emailLabel'), hint: t('signIn.emailHint'), type: 'email', autocomplete: 'email', required: true, attrs: html`spellcheck="false" autocapitalize="off"` })}
  <button type="submit">${t('signIn.submit')}</button>
</form>
<section id="sign-in-sent" class="panel" tabindex="-1" aria-labelledby="sign-in-sent-title" hidden>
  <h2 id="sign-in-sent-title">${t('signIn.sentTitle')}</h2>
  <p id="sign-in-sent-text"></p>
</section>`;
  },
};

export const verifyPage: PageDefinition = {
  id: 'verify',
  path: '/buyer/verify',
  titleKey: 'verify.title',
  body({ t, href }) {
    return html`<p id="verify-working">${t('verify.working')}</p>
<section id="verify-failed" class="panel" aria-labelledby="verify-failed-title" hidden>
  <h2 id="verify-failed-title">${t('verify.failedTitle')}</h2>
  <p id="verify-failed-text"></p>
  <p><a class="button" href="${href('/buyer/sign-in')}">${t('verify.askAgain')}</a></p>
</section>`;
  },
};
