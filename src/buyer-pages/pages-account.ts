/** The signed-in pages: agents, saved cards (with the provider's card form) and permissions. */
import type { Translate } from '../i18n/i18n.ts';
import { codeStep, field, notices, selectField, signedOutPanel, withCurrency } from './components.ts';
import { html, type Markup } from './html.ts';
import type { PageContext, PageDefinition } from './layout.ts';

/**
 * Wraps an account page's content: the signed-out panel, and the content the script reveals once it holds a session.
 */
export function account(ctx: PageContext, content: Markup): Markup {
  const signIn = ctx.href('/buyer/sign-in');
  return html`${signedOutPanel(ctx.t, signIn)}
<div id="content" hidden>
${notices(ctx.t, signIn)}
${content}
</div>`;
}

function table(id: string, caption: string, columns: readonly string[]): Markup {
  return html`<table id="${id}-table" class="data" hidden>
  <caption class="visually-hidden">${caption}</caption>
  <thead><tr>${columns.map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>
  <tbody id="${id}-rows"></tbody>
</table>`;
}

function confirmDialog(id: string, t: Translate, confirmLabel: string, extra: Markup = html``): Markup {
  return html`<dialog id="${id}" class="dialog" aria-labelledby="${id}-title" aria-describedby="${id}-body">
  <form method="dialog" class="stack">
    <h2 id="${id}-title"></h2>
    <p id="${id}-body"></p>
    ${extra}
    <div class="actions"><button value="confirm" class="danger">${confirmLabel}</button> <button value="cancel" class="secondary" autofocus>${t('common.cancel')}</button></div>
  </form>
</dialog>`;
}

export const agentsPage: PageDefinition = {
  id: 'agents',
  path: '/buyer/agents',
  titleKey: 'agents.title',
  body(ctx) {
    const { t } = ctx;
    return account(
      ctx,
      html`<p class="intro">${t('agents.intro')}</p>
<section aria-labelledby="agents-list-title">
  <h2 id="agents-list-title">${t('agents.listTitle')}</h2>
  <p id="agents-empty" hidden>${t('agents.empty')}</p>
  ${table('agents', t('agents.listTitle'), [t('agents.colName'), t('agents.colStatus'), t('agents.colCredential'), t('agents.colCreated'), t('common.actions')])}
</section>
<section id="new-credential" class="panel highlight" tabindex="-1" aria-labelledby="new-credential-title" hidden>
  <h2 id="new-credential-title">${t('agents.credentialTitle')}</h2>
  <p>${t('agents.credentialBody')}</p>
  <label for="new-credential-value" id="new-credential-label">${t('agents.credentialTitle')}</label>
  <input id="new-credential-value" type="text" class="credential" readonly spellcheck="false" autocomplete="off">
  <div class="actions"><button type="button" id="copy-credential">${t('agents.copy')}</button> <button type="button" id="dismiss-credential" class="secondary">${t('agents.dismiss')}</button></div>
</section>
<section id="create-agent" aria-labelledby="create-agent-title" data-needs-full hidden>
  <h2 id="create-agent-title">${t('agents.createTitle')}</h2>
  <form id="create-agent-form" class="stack" novalidate>
    ${field({ id: 'agent-name', name: 'name', label: t('agents.nameLabel'), hint: t('agents.nameHint'), autocomplete: 'off', required: true, attrs: html`maxlength="100"` })}
    ${codeStep(t, 'agent')}
    <button type="submit" data-final="${t('agents.createSubmit')}">${t('common.continue')}</button>
  </form>
</section>
${confirmDialog('confirm-delete', t, t('agents.delete'))}`,
    );
  },
};

export const cardsPage: PageDefinition = {
  id: 'cards',
  path: '/buyer/cards',
  titleKey: 'cards.title',
  body(ctx) {
    const { t } = ctx;
    return account(
      ctx,
      html`<p class="intro">${t('cards.intro')}</p>
<section aria-labelledby="cards-list-title">
  <h2 id="cards-list-title">${t('cards.listTitle')}</h2>
  <p id="cards-empty" hidden>${t('cards.empty')}</p>
  ${table('cards', t('cards.listTitle'), [t('cards.colCard'), t('cards.colCap'), t('cards.colShop'), t('cards.colSaved'), t('common.actions')])}
</section>
<section id="change-cap" class="panel" aria-labelledby="change-cap-title" hidden>
  <h2 id="change-cap-title" tabindex="-1"></h2>
  <p id="change-cap-current"></p>
  <form id="cap-form" class="stack" novalidate>
    ${field({ id: 'cap-amount', name: 'spendingCap', label: withCurrency(t('cards.newCapLabel')), hint: t('cards.newCapHint'), inputmode: 'decimal', autocomplete: 'off', required: true })}
    ${codeStep(t, 'cap')}
    <div class="actions"><button type="submit" data-final="${t('cards.capSubmit')}">${t('common.continue')}</button> <button type="button" id="cap-cancel" class="secondary">${t('common.cancel')}</button></div>
  </form>
</section>
<section id="add-card" aria-labelledby="add-card-title" data-needs-full data-needs-shop hidden>
  <h2 id="add-card-title">${t('cards.addTitle')}</h2>
  <p>${t('cards.addIntro')}</p>
  <p><button type="button" id="start-card-setup">${t('cards.start')}</button></p>
  <div id="card-frame" class="card-frame" hidden>
    <p id="card-frame-intro">${t('cards.frameIntro')}</p>
  </div>
  <form id="save-card-form" class="stack" novalidate hidden>
    <p id="card-ready" class="ready" tabindex="-1"></p>
    ${field({ id: 'card-cap', name: 'spendingCap', label: withCurrency(t('cards.capLabel')), hint: t('cards.capHint'), inputmode: 'decimal', autocomplete: 'off', required: true })}
    ${codeStep(t, 'card')}
    <div class="actions"><button type="submit" data-final="${t('cards.saveSubmit')}">${t('common.continue')}</button> <button type="button" id="discard-card-setup" class="secondary">${t('cards.useAnother')}</button></div>
  </form>
</section>
${confirmDialog('confirm-remove-card', t, t('cards.remove'))}`,
    );
  },
};

export const permissionsPage: PageDefinition = {
  id: 'permissions',
  path: '/buyer/permissions',
  titleKey: 'permissions.title',
  body(ctx) {
    const { t } = ctx;
    const windows: [string, string][] = ['24', '168', '720'].map((h) => [h, t(`permissions.windowOption${h}`)]);
    const amount = (id: string, key: string) =>
      field({ id, label: withCurrency(t(key)), inputmode: 'decimal', autocomplete: 'off', required: true });
    return account(
      ctx,
      html`<p class="intro">${t('permissions.intro')}</p>
<section aria-labelledby="permissions-list-title">
  <h2 id="permissions-list-title">${t('permissions.listTitle')}</h2>
  <p id="permissions-empty" hidden>${t('permissions.empty')}</p>
  <ul id="permissions-list" class="permission-list" hidden></ul>
</section>
<section id="grant" aria-labelledby="grant-title" data-needs-consent data-needs-shop hidden>
  <h2 id="grant-title">${t('permissions.grantTitle')}</h2>
  <p id="grant-need-agent" class="notice" hidden>${t('permissions.needAgent')} <a href="${ctx.href('/buyer/agents')}">${t('nav.agents')}</a></p>
  <p id="grant-need-card" class="notice" hidden>${t('permissions.needCard')} <a href="${ctx.href('/buyer/cards')}">${t('nav.cards')}</a></p>
  <form id="grant-form" class="stack" novalidate hidden>
    <fieldset><legend>${t('permissions.whoLegend')}</legend>
      ${selectField({ id: 'grant-agent', label: t('permissions.agentLabel') })}
      ${selectField({ id: 'grant-card', label: t('permissions.cardLabel') })}
    </fieldset>
    <fieldset><legend>${t('permissions.limitsLegend')}</legend>
      ${amount('grant-per-purchase', 'permissions.perPurchaseLabel')}
      ${amount('grant-allowance', 'permissions.allowanceLabel')}
      ${selectField({ id: 'grant-window', label: t('permissions.windowLabel'), options: windows })}
      ${field({ id: 'grant-expires', label: t('permissions.expiresLabel'), hint: t('permissions.expiresHint'), type: 'date', required: true })}
    </fieldset>
    ${codeStep(t, 'grant')}
    <button type="submit" data-final="${t('permissions.grantSubmit')}">${t('common.continue')}</button>
  </form>
</section>
${confirmDialog('confirm-revoke', t, t('permissions.revoke'), field({ id: 'revoke-reason', name: 'reason', label: `${t('permissions.reasonLabel')} ${t('common.optional')}`, autocomplete: 'off', attrs: html`maxlength="500"` }))}`,
    );
  },
};
