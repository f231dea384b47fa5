/**
 * The page an agent's limit-raise request opens (`/buyer/limit-raise?request=lrr_…`, the URL an MCP client is elicited
 * with): the buyer signs in by e-mail (the link comes back here), sees what the agent asks for and approves it with the
 * emailed code, or declines it.
 */
import { codeStep, emailLinkSection } from './components.ts';
import { html } from './html.ts';
import type { PageDefinition } from './layout.ts';

export const limitRaisePage: PageDefinition = {
  id: 'limit-raise',
  path: '/buyer/limit-raise',
  titleKey: 'limitRaise.title',
  body(ctx) {
    const { t } = ctx;
    return html`<p class="intro">${t('limitRaise.intro')}</p>
<p id="limit-raise-missing" class="notice" hidden>${t('limitRaise.missing')}</p>
${emailLinkSection(t, 'limit-raise', t('limitRaise.signInTitle'))}
<section id="limit-raise-request" aria-labelledby="limit-raise-request-title" hidden>
  <h2 id="limit-raise-request-title" tabindex="-1"></h2>
  <p id="limit-raise-need"></p>
  <ul>
    <li id="limit-raise-per-purchase"></li>
    <li id="limit-raise-allowance"></li>
  </ul>
  <p id="limit-raise-state" class="notice" tabindex="-1" hidden></p>
  <form id="limit-raise-form" class="stack" novalidate hidden>
    <p class="hint">${t('limitRaise.codeHint')}</p>
    ${codeStep(t, 'limit-raise')}
    <div class="actions"><button type="submit" data-final="${t('limitRaise.approve')}">${t('common.continue')}</button> <button type="button" id="limit-raise-decline" class="secondary">${t('limitRaise.decline')}</button></div>
  </form>
</section>`;
  },
};
