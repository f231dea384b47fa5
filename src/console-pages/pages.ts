/**
 * The merchant console's pages (/console/...): server-rendered, English, keyboard and screen-reader friendly, with a
 * strict CSP (no inline script or style). Sign-in asks for an e-mailed link; the link's page (/console/verify) and an
 * invitation's page (/console/accept) redeem the token from the URL fragment and open the console in the same
 * document, so the bearer lives only in the script's memory. The console shows only what the role may do.
 */
import { html, type Markup } from '../buyer-pages/html.ts';
import { WEBHOOK_EVENT_TYPES } from '../webhooks/outbox.ts';

export interface ConsolePage {
  id: 'sign-in' | 'verify' | 'accept';
  path: string;
  title: string;
  body: Markup;
}

const SCOPES = [
  ['merchant:read', 'Reads, including the pools listing'],
  ['merchant:write', 'Catalog writes, webhooks, buyer-session minting, the shop’s public settings'],
  ['merchant:admin', 'Creating or deleting a shop and linking a payment provider'],
  ['mandates:attest', 'Minting with merchantAttested: true (enabled organizations only)'],
] as const;

/** Scopes only an owner may put on a key (an integrator is never offered them; the server refuses them anyway). */
const OWNER_SCOPES: readonly string[] = ['merchant:admin', 'mandates:attest'];
const ownerOnly = (scope: string): Markup | string => (OWNER_SCOPES.includes(scope) ? html` data-owner-only` : '');

/** A shop picker for a section, filled by the script from list_shops. */
const shopSelect = (id: string, label = 'Shop'): Markup =>
  html`<p><label for="${id}">${label}</label> <select id="${id}" name="shop" data-shop-select required></select></p>`;

/**
 * The console itself, shown once signed in: every section; the owner-only parts are marked for removal for integrators.
 */
const CONSOLE: Markup = html`<div id="console" hidden>
<p id="who" class="notice"></p>
<nav aria-label="Console sections"><ul>
  <li><a href="#keys">API keys</a></li>
  <li><a href="#embed">Embed origins</a></li>
  <li><a href="#shops">Shops</a></li>
  <li><a href="#webhooks">Webhooks</a></li>
  <li><a href="#consent">Attested consent</a></li>
  <li><a href="#provider">Payment provider</a></li>
  <li data-owner-only><a href="#team">Team</a></li>
</ul></nav>
<section id="keys" aria-labelledby="keys-title">
  <h2 id="keys-title" tabindex="-1">API keys</h2>
  <p id="attest-available"></p>
  <table class="data"><caption>Your organization’s keys</caption>
    <thead><tr><th scope="col">Name</th><th scope="col">Scopes</th><th scope="col">State</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody id="key-rows"></tbody></table>
  <form id="key-form" novalidate>
    <h3>Create a key</h3>
    <p><label for="key-name">Name</label> <input id="key-name" name="name" required maxlength="100" autocomplete="off"></p>
    <fieldset><legend>Scopes</legend>${SCOPES.map(
      ([scope, what]) =>
        html`<p${ownerOnly(scope)}><input type="checkbox" id="scope-${scope.replace(':', '-')}" name="scopes" value="${scope}"> <label for="scope-${scope.replace(':', '-')}"><code>${scope}</code>: ${what}</label></p>`,
    )}</fieldset>
    <p><button type="submit">Create key</button></p>
    <p id="new-key" class="notice" hidden></p>
  </form>
</section>
<section id="embed" aria-labelledby="embed-title">
  <h2 id="embed-title" tabindex="-1">Embed origins</h2>
  <form id="embed-form" novalidate>
    ${shopSelect('embed-shop')}
    <p><label for="embed-origins">Origins</label> <input id="embed-origins" name="origins" aria-describedby="embed-hint" autocomplete="off">
      <span id="embed-hint">Up to three, separated by spaces or commas, e.g. https://shop.example. Empty clears them.</span></p>
    <p><button type="submit">Save embed origins</button></p>
  </form>
</section>
<section id="shops" aria-labelledby="shops-title">
  <h2 id="shops-title" tabindex="-1">Shops</h2>
  <table class="data"><caption>Your organization’s shops</caption>
    <thead><tr><th scope="col">Name</th><th scope="col">Id</th><th scope="col">Currency</th><th scope="col">In discovery</th><th scope="col">Description</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody id="shop-rows"></tbody></table>
  <form id="shop-settings-form" novalidate data-owner-only>
    <h3>Public settings</h3>
    ${shopSelect('settings-shop')}
    <p><label for="settings-name">Name</label> <input id="settings-name" name="name" required maxlength="200" autocomplete="off"></p>
    <p><label for="settings-description">Description</label> <input id="settings-description" name="description" maxlength="2000" autocomplete="off" aria-describedby="settings-description-hint">
      <span id="settings-description-hint">Shown in the public discovery window. Empty removes it.</span></p>
    <p><input type="checkbox" id="settings-discoverable" name="discoverable"> <label for="settings-discoverable">Discoverable: list this shop in the public discovery window and product feed</label></p>
    <p><button type="submit">Save settings</button></p>
  </form>
  <form id="shop-create-form" novalidate data-owner-only>
    <h3>Create a shop</h3>
    <p><label for="new-shop-name">Name</label> <input id="new-shop-name" name="name" required maxlength="200" autocomplete="off"></p>
    <p><label for="new-shop-description">Description</label> <input id="new-shop-description" name="description" maxlength="2000" autocomplete="off"></p>
    <p><label for="new-shop-currency">Currency</label> <input id="new-shop-currency" name="currency" required pattern="[A-Z]{3}" maxlength="3" value="EUR" autocomplete="off" aria-describedby="new-shop-currency-hint">
      <span id="new-shop-currency-hint">An ISO 4217 code in capitals, e.g. EUR.</span></p>
    <p><input type="checkbox" id="new-shop-discoverable" name="discoverable"> <label for="new-shop-discoverable">Discoverable</label></p>
    <p><button type="submit">Create shop</button></p>
  </form>
</section>
<section id="webhooks" aria-labelledby="webhooks-title">
  <h2 id="webhooks-title" tabindex="-1">Webhooks</h2>
  ${shopSelect('webhook-shop')}
  <table class="data"><caption>Subscriptions of this shop</caption>
    <thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Created</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody id="webhook-rows"></tbody></table>
  <div id="delivery-log" hidden>
    <h3 id="delivery-log-title" tabindex="-1">Delivery log</h3>
    <table class="data"><caption id="delivery-caption">Deliveries, newest first</caption>
      <thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last answer</th><th scope="col">Next attempt</th><th scope="col">Created</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody id="delivery-rows"></tbody></table>
  </div>
  <form id="webhook-form" novalidate>
    <h3>Subscribe an endpoint</h3>
    <p><label for="webhook-url">URL</label> <input id="webhook-url" name="url" type="url" required maxlength="2048" autocomplete="off" aria-describedby="webhook-url-hint">
      <span id="webhook-url-hint">https:// (http:// only for localhost).</span></p>
    <fieldset><legend>Events</legend>${WEBHOOK_EVENT_TYPES.map(
      (type) =>
        html`<p><input type="checkbox" id="event-${type.replace(/[._]/g, '-')}" name="events" value="${type}"> <label for="event-${type.replace(/[._]/g, '-')}"><code>${type}</code></label></p>`,
    )}</fieldset>
    <p><button type="submit">Create webhook</button></p>
    <p id="new-webhook" class="notice" hidden></p>
  </form>
</section>
<section id="consent" aria-labelledby="consent-title">
  <h2 id="consent-title" tabindex="-1">Attested consent</h2>
  <p id="consent-state"></p>
  <h3>Attest keys</h3>
  <table class="data"><caption>Keys holding <code>mandates:attest</code></caption>
    <thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">State</th><th scope="col">Last used</th></tr></thead>
    <tbody id="attest-key-rows"></tbody></table>
  <h3>Permissions</h3>
  <dl id="permission-counts"></dl>
  <table class="data"><caption>Buyers near the ceiling (80% or more spent in the window)</caption>
    <thead><tr><th scope="col">Buyer</th><th scope="col">Spent</th><th scope="col">Ceiling</th><th scope="col">Left</th></tr></thead>
    <tbody id="near-ceiling-rows"></tbody></table>
  <table class="data"><caption>Recent attested permissions</caption>
    <thead><tr><th scope="col">Permission</th><th scope="col">Agent</th><th scope="col">Allowance</th><th scope="col">Per purchase</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col">Withdrawal reason</th></tr></thead>
    <tbody id="permission-rows"></tbody></table>
  <form id="withdraw-form" novalidate data-owner-only>
    <h3>Withdraw a permission</h3>
    <p><label for="withdraw-permission">Permission</label> <select id="withdraw-permission" name="permission" required></select></p>
    <p><label for="withdraw-reason">Reason</label> <input id="withdraw-reason" name="reason" required maxlength="500" autocomplete="off" aria-describedby="withdraw-hint">
      <span id="withdraw-hint">Recorded with the withdrawal. The agent is refused from now on; what was spent stays counted.</span></p>
    <p><button type="submit">Withdraw permission</button></p>
  </form>
</section>
<section id="provider" aria-labelledby="provider-title">
  <h2 id="provider-title" tabindex="-1">Payment provider</h2>
  ${shopSelect('provider-shop')}
  <table class="data"><caption>Payment providers of this shop</caption>
    <thead><tr><th scope="col">Provider</th><th scope="col">Status</th><th scope="col">Payments go through it</th><th scope="col">Mode</th><th scope="col">Publishable key</th><th scope="col">Secret key</th></tr></thead>
    <tbody id="provider-rows"></tbody></table>
  <form id="provider-form" novalidate data-owner-only>
    <h3>Configure the second provider (Stripe)</h3>
    <p>Its settings are checked and stored, the secrets encrypted; it is not switched on in the sandbox, where payments keep using the sandbox provider.</p>
    <p><label for="provider-publishable">Publishable key</label> <input id="provider-publishable" name="publishableKey" required maxlength="255" autocomplete="off"></p>
    <p><label for="provider-secret">Secret key</label> <input id="provider-secret" name="secretKey" type="password" required maxlength="255" autocomplete="off"></p>
    <p><label for="provider-webhook-secret">Webhook signing secret</label> <input id="provider-webhook-secret" name="webhookSecret" type="password" required maxlength="255" autocomplete="off"></p>
    <p><label for="provider-account">Account id (optional)</label> <input id="provider-account" name="accountId" maxlength="255" autocomplete="off"></p>
    <p><button type="submit">Save provider settings</button></p>
  </form>
</section>
<section id="team" aria-labelledby="team-title" data-owner-only>
  <h2 id="team-title" tabindex="-1">Team</h2>
  <table class="data"><caption>Members</caption>
    <thead><tr><th scope="col">E-mail</th><th scope="col">Role</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody id="member-rows"></tbody></table>
  <h3>Pending invitations</h3>
  <ul id="invitation-rows"></ul>
  <form id="invite-form" novalidate>
    <h3>Invite a teammate</h3>
    <p><label for="invite-email">E-mail</label> <input id="invite-email" name="email" type="email" required autocomplete="off"></p>
    <p><label for="invite-role">Role</label> <select id="invite-role" name="role"><option value="integrator">Integrator</option><option value="owner">Owner</option></select></p>
    <p><button type="submit">Send invitation</button></p>
  </form>
</section>
<p><button type="button" id="sign-out">Sign out</button></p>
</div>`;

export const CONSOLE_PAGES: readonly ConsolePage[] = [
  {
    id: 'sign-in',
    path: '/console/sign-in',
    title: 'Sign in to the console',
    body: html`<form id="sign-in-form" novalidate>
<p><label for="email">Work e-mail</label> <input id="email" name="email" type="email" required autocomplete="email"></p>
<p><button type="submit">Send me a sign-in link</button></p>
</form>`,
  },
  {
    id: 'verify',
    path: '/console/verify',
    title: 'Merchant console',
    body: html`<p id="pending">Signing you in…</p>${CONSOLE}`,
  },
  {
    id: 'accept',
    path: '/console/accept',
    title: 'Merchant console',
    body: html`<p id="pending">Accepting the invitation…</p>${CONSOLE}`,
  },
];

/** The whole document of a console page. */
export function renderConsolePage(page: ConsolePage): string {
  return html`<!doctype html>
<html lang="en" dir="ltr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light dark">
<title>${page.title} · Tessera</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/buyer/assets/buyer.css">
<script type="module" src="/console/assets/console.js"></script>
</head>
<body>
<a class="skip-link" href="#main">Skip to the content</a>
<header class="site-header"><p class="brand">Tessera merchant console</p></header>
<main id="main" tabindex="-1" data-page="${page.id}">
<h1 id="page-title" tabindex="-1">${page.title}</h1>
<div id="error-summary" class="error-summary" tabindex="-1" hidden><div role="alert"><h2>There is a problem</h2><p id="error-text"></p></div></div>
<div id="status" class="status" role="status" aria-live="polite" aria-atomic="true"></div>
<noscript><p class="notice">The console needs JavaScript.</p></noscript>
${page.body}
</main>
</body>
</html>
`.value;
}
