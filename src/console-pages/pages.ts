/**
 * The merchant console's pages (/console/...): server-rendered, English, keyboard and screen-reader friendly, with a
 * strict CSP (no inline script or style). Sign-in asks for an e-mailed link; the link's page (/console/verify) and an
 * invitation's page (/console/accept) redeem the token from the URL fragment and open the console in the same
 * document, so the bearer lives only in the script's memory. The console shows only what the role may do.
 */
import { html, type Markup } from '../buyer-pages/html.ts';

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

/** The console itself, shown once signed in: API keys, embed origins and (owners) the team. */
const CONSOLE: Markup = html`<div id="console" hidden>
<p id="who" class="notice"></p>
<nav aria-label="Console sections"><ul>
  <li><a href="#keys">API keys</a></li>
  <li><a href="#embed">Embed origins</a></li>
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
      ([scope, what]) => html`<p${scope === 'merchant:admin' ? html` data-owner-only` : ''}><input type="checkbox" id="scope-${scope.replace(':', '-')}" name="scopes" value="${scope}"> <label for="scope-${scope.replace(':', '-')}"><code>${scope}</code>: ${what}</label></p>`,
    )}</fieldset>
    <p><button type="submit">Create key</button></p>
    <p id="new-key" class="notice" hidden></p>
  </form>
</section>
<section id="embed" aria-labelledby="embed-title">
  <h2 id="embed-title" tabindex="-1">Embed origins</h2>
  <form id="embed-form" novalidate>
    <p><label for="embed-shop">Shop id</label> <input id="embed-shop" name="shop" required pattern="shop_[0-9a-z]+" autocomplete="off"></p>
    <p><label for="embed-origins">Origins</label> <input id="embed-origins" name="origins" aria-describedby="embed-hint" autocomplete="off">
      <span id="embed-hint">Up to three, separated by spaces or commas, e.g. https://shop.example. Empty clears them.</span></p>
    <p><button type="submit">Save embed origins</button></p>
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
  { id: 'verify', path: '/console/verify', title: 'Merchant console', body: html`<p id="pending">Signing you in…</p>${CONSOLE}` },
  { id: 'accept', path: '/console/accept', title: 'Merchant console', body: html`<p id="pending">Accepting the invitation…</p>${CONSOLE}` },
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
