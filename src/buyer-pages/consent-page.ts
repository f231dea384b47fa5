/**
 * The embeddable authorize-and-consent view (`GET /embed/consent`, spec §1, §3, §6, §8): a server-rendered shell
 * whose script (`assets/consent.js`, from 'self') waits for the partner's `session` message, then walks the buyer
 * through verifying by code, choosing or creating an agent, choosing or saving a card, and granting a permission.
 * The protocol is docs/embedding.md; the rules it relies on are in src/domain/buyers/ (embed-access, consent-drafts,
 * consent-theme, session-step-up).
 */
import type { Translate } from '../i18n/i18n.ts';
import { codeStep, field, selectField, withCurrency } from './components.ts';
import { html, type Markup } from './html.ts';

export interface ConsentView {
  t: Translate;
  lang: string;
  /** The shop the view is for (`?shop=`), and its name when it exists. */
  shopId: string;
  shopName: string | null;
  /** The partner's origin when it is one of the shop's embed origins; null otherwise (the view then posts nothing). */
  origin: string | null;
  mode: 'iframe' | 'popup';
  /** The theme stylesheet's URL when a valid theme was passed. */
  themeHref: string | null;
  /** A view error code shown and (when `origin` is known) posted: `theme_invalid`. */
  themeError: string | null;
  /** Whether `?lang=` named the language (else the session's language may replace it). */
  langFixed: boolean;
}

function step(id: string, title: string, body: Markup): Markup {
  return html`<section id="step-${id}" class="consent-step" aria-labelledby="step-${id}-title" hidden>
<h2 id="step-${id}-title" tabindex="-1">${title}</h2>
${body}
</section>`;
}

function body(v: ConsentView): Markup {
  const { t } = v;
  if (!v.origin) return html`<p id="consent-unavailable" class="notice">${t('consent.unavailable')}</p>`;
  const windows: [string, string][] = ['24', '168', '720'].map((h) => [h, t(`permissions.windowOption${h}`)]);
  const amount = (id: string, key: string) =>
    field({ id, label: withCurrency(t(key)), inputmode: 'decimal', autocomplete: 'off', required: true });
  return html`<p id="consent-waiting">${t('consent.waiting')}</p>
<p id="consent-failed" class="notice" hidden>${t('consent.sessionFailed')}</p>
<div id="content" hidden>
${step(
  'verify',
  t('consent.verifyTitle'),
  html`<form id="verify-form" class="stack" novalidate>
  <p id="verify-body"></p>
  ${codeStep(t, 'verify')}
  <button type="submit" data-final="${t('consent.verifySubmit')}">${t('common.continue')}</button>
</form>`,
)}
${step(
  'agent',
  t('consent.agentTitle'),
  html`<form id="agent-form" class="stack" novalidate>
  ${selectField({ id: 'agent-choice', label: t('consent.agentChoice') })}
  <div id="agent-new" hidden>
  ${field({ id: 'agent-name', name: 'name', label: t('agents.nameLabel'), hint: t('agents.nameHint'), autocomplete: 'off', required: true, attrs: html`maxlength="100"` })}
  ${codeStep(t, 'agent')}
  </div>
  <button type="submit" data-final="${t('agents.createSubmit')}">${t('common.continue')}</button>
</form>`,
)}
${step(
  'card',
  t('consent.cardTitle'),
  html`<section id="new-credential" class="panel highlight" tabindex="-1" aria-labelledby="new-credential-title" hidden>
  <h3 id="new-credential-title">${t('agents.credentialTitle')}</h3>
  <p>${t('agents.credentialBody')}</p>
  <label for="new-credential-value">${t('agents.credentialTitle')}</label>
  <input id="new-credential-value" type="text" class="credential" readonly spellcheck="false" autocomplete="off">
</section>
<form id="card-choice-form" class="stack" novalidate>
  ${selectField({ id: 'card-choice', label: t('consent.cardChoice') })}
  <p id="card-add-intro" hidden>${t('cards.addIntro')}</p>
  <button type="submit" id="card-choice-submit" data-add="${t('cards.start')}" data-next="${t('common.continue')}">${t('common.continue')}</button>
</form>
<div id="card-frame" class="card-frame" hidden>
  <p id="card-frame-intro">${t('cards.frameIntro')}</p>
</div>
<form id="save-card-form" class="stack" novalidate hidden>
  <p id="card-ready" class="ready" tabindex="-1"></p>
  ${field({ id: 'card-cap', name: 'spendingCap', label: withCurrency(t('cards.capLabel')), hint: t('cards.capHint'), inputmode: 'decimal', autocomplete: 'off', required: true })}
  ${codeStep(t, 'card')}
  <button type="submit" data-final="${t('cards.saveSubmit')}">${t('common.continue')}</button>
</form>`,
)}
${step(
  'limits',
  t('consent.limitsTitle'),
  html`<form id="grant-form" class="stack" novalidate>
  <p id="grant-who"></p>
  <fieldset><legend>${t('permissions.limitsLegend')}</legend>
    ${amount('grant-per-purchase', 'permissions.perPurchaseLabel')}
    ${amount('grant-allowance', 'permissions.allowanceLabel')}
    ${selectField({ id: 'grant-window', label: t('permissions.windowLabel'), options: windows })}
    ${field({ id: 'grant-expires', label: t('permissions.expiresLabel'), hint: t('permissions.expiresHint'), type: 'date', required: true })}
  </fieldset>
  ${codeStep(t, 'grant')}
  <button type="submit" data-final="${t('permissions.grantSubmit')}">${t('common.continue')}</button>
</form>`,
)}
${step('done', t('consent.doneTitle'), html`<p id="done-body"></p>`)}
<p class="consent-cancel"><button type="button" id="consent-cancel" class="secondary">${t('consent.cancel')}</button></p>
</div>
<p id="consent-discarded" class="notice" tabindex="-1" hidden>${t('consent.discarded')}</p>
<dialog id="confirm-discard" class="dialog" aria-labelledby="confirm-discard-title" aria-describedby="confirm-discard-body">
  <form method="dialog" class="stack">
    <h2 id="confirm-discard-title"></h2>
    <p id="confirm-discard-body"></p>
    <div class="actions"><button value="cancel" class="secondary">${t('consent.keep')}</button> <button value="confirm" class="danger">${t('consent.discardConfirm')}</button></div>
  </form>
</dialog>`;
}

/** The whole document. No inline script or style; the theme comes as a stylesheet from this origin. */
export function renderConsentView(v: ConsentView): string {
  const { t } = v;
  const title = t('consent.title');
  return html`<!doctype html>
<html lang="${v.lang}" dir="ltr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light dark">
<title>${t('common.pageTitle', { title })}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/buyer/assets/buyer.css">
<link rel="stylesheet" href="/buyer/assets/consent.css">
${v.themeHref ? html`<link rel="stylesheet" href="${v.themeHref}">` : ''}
<script type="module" src="/buyer/assets/consent.js"></script>
</head>
<body class="consent">
<main id="main" class="consent-panel" tabindex="-1" data-page="consent" data-lang="${v.lang}" data-shop="${v.shopId}"${
    v.origin ? html` data-origin="${v.origin}" data-mode="${v.mode}"` : ''
  }${v.themeError ? html` data-view-error="${v.themeError}"` : ''}${v.langFixed ? html` data-lang-fixed=""` : ''}>
<p class="brand">${t('common.brand')}${v.shopName ? html` · <span id="consent-shop">${t('consent.forShop', { shop: v.shopName })}</span>` : ''}</p>
<h1 id="page-title" tabindex="-1">${title}</h1>
<p class="intro">${t('consent.intro')}</p>
<div id="error-summary" class="error-summary" tabindex="-1" aria-labelledby="error-summary-title" hidden>
  <div role="alert"><h2 id="error-summary-title">${t('common.errorSummaryTitle')}</h2><ul id="error-list"></ul></div>
</div>
<div id="status" class="status" role="status" aria-live="polite" aria-atomic="true"></div>
<noscript><p class="notice">${t('common.noscript')}</p></noscript>
${body(v)}
</main>
</body>
</html>
`.value;
}
