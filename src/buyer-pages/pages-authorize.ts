/**
 * The authorize step of an MCP client's OAuth request (`/buyer/authorize?interaction=…`): the buyer signs in by
 * e-mail, chooses the shop, names the agent, picks a saved card or enters a new one in the payment provider's frame,
 * sets limits and confirms it all with ONE emailed code; the client then receives its authorization code
 * (docs/oauth.md).
 */
import { codeStep, emailLinkSection, field, selectField, withCurrency } from './components.ts';
import { html } from './html.ts';
import type { PageDefinition } from './layout.ts';

export const authorizePage: PageDefinition = {
  id: 'authorize',
  path: '/buyer/authorize',
  titleKey: 'authorize.title',
  body(ctx) {
    const { t } = ctx;
    const windows: [string, string][] = ['24', '168', '720'].map((h) => [h, t(`permissions.windowOption${h}`)]);
    const amount = (id: string, key: string) =>
      field({ id, label: withCurrency(t(key)), inputmode: 'decimal', autocomplete: 'off', required: true });
    return html`<p class="intro">${t('authorize.intro')}</p>
<p id="authorize-client" class="notice" hidden></p>
<p id="authorize-missing" class="notice" hidden>${t('authorize.missing')}</p>
${emailLinkSection(t, 'authorize', t('authorize.signInTitle'))}
<section id="authorize-shop-step" aria-labelledby="authorize-shop-title" hidden>
  <h2 id="authorize-shop-title" tabindex="-1">${t('authorize.shopTitle')}</h2>
  <p id="authorize-signed-in"></p>
  <form id="authorize-shop-form" class="stack" novalidate>
    ${selectField({ id: 'authorize-shop', label: t('authorize.shopLabel'), hint: t('authorize.shopHint') })}
    <div class="actions"><button type="submit">${t('common.continue')}</button></div>
  </form>
</section>
<section id="authorize-grant" aria-labelledby="authorize-grant-title" hidden>
  <h2 id="authorize-grant-title" tabindex="-1">${t('authorize.grantTitle')}</h2>
  <p id="authorize-for-shop"></p>
  <form id="authorize-form" class="stack" novalidate>
    <fieldset><legend>${t('authorize.agentLegend')}</legend>
      ${field({ id: 'authorize-agent-name', label: t('authorize.agentNameLabel'), hint: t('authorize.agentNameHint'), autocomplete: 'off', required: true, attrs: html`maxlength="100"` })}
    </fieldset>
    <fieldset><legend>${t('authorize.cardLegend')}</legend>
      ${selectField({ id: 'authorize-card', label: t('permissions.cardLabel') })}
      <div id="authorize-new-card" class="stack" hidden>
        <p>${t('authorize.newCardIntro')}</p>
        <p><button type="button" id="authorize-start-card">${t('cards.start')}</button></p>
        <div id="authorize-card-frame" class="card-frame" hidden>
          <p>${t('cards.frameIntro')}</p>
        </div>
        <p id="authorize-card-ready" class="ready" tabindex="-1" hidden></p>
        <p><button type="button" id="authorize-another-card" class="secondary" hidden>${t('cards.useAnother')}</button></p>
      </div>
    </fieldset>
    <fieldset><legend>${t('permissions.limitsLegend')}</legend>
      ${amount('authorize-per-purchase', 'permissions.perPurchaseLabel')}
      ${amount('authorize-allowance', 'permissions.allowanceLabel')}
      ${selectField({ id: 'authorize-window', label: t('permissions.windowLabel'), options: windows })}
      ${field({ id: 'authorize-expires', label: t('permissions.expiresLabel'), hint: t('permissions.expiresHint'), type: 'date', required: true })}
    </fieldset>
    <p class="hint">${t('authorize.codeHint')}</p>
    ${codeStep(t, 'authorize')}
    <div class="actions"><button type="submit" id="authorize-submit" data-final="${t('authorize.submit')}">${t('common.continue')}</button></div>
  </form>
</section>
<p id="authorize-decline-actions" class="actions" hidden><button type="button" id="authorize-decline" class="secondary">${t('authorize.decline')}</button></p>`;
  },
};
