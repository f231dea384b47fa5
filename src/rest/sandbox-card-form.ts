/**
 * The sandbox provider's hosted card form (GET /sandbox/card-form): a tiny self-contained page, meant to
 * be framed, that turns a test card number into a sandbox payment method and posts it to the parent
 * window, so a card number never reaches our API. No external assets; inline code runs under a nonce CSP.
 */
import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { SANDBOX_METHODS, SANDBOX_SETUP_TEST_CARDS } from '../payments/sandbox-methods.ts';

/** The message posted to the parent window. */
export const CARD_FORM_MESSAGE_TYPE = 'sandbox.payment_method';

/** `?origin=` when it is a bare http(s) origin (the parent's), else `*` (the token is a test value, not a secret). */
function targetOrigin(raw: unknown): string {
  if (typeof raw !== 'string') return '*';
  try {
    const u = new URL(raw);
    return (u.protocol === 'https:' || u.protocol === 'http:') && u.origin === raw ? raw : '*';
  } catch {
    return '*';
  }
}

/** JSON safe to embed in a <script> element. */
const scriptJson = (v: unknown): string => JSON.stringify(v).replace(/</g, '\\u003c');

/**
 * `ancestors`: partner origins that may frame the form besides this service's own pages (the consent view's shop's
 * embed origins).
 */
export function renderCardForm(ctx: Context, ancestors: readonly string[] = []): void {
  const nonce = randomBytes(16).toString('base64');
  const cards = Object.fromEntries(
    [...Object.entries(SANDBOX_METHODS), ...Object.entries(SANDBOX_SETUP_TEST_CARDS)].map(([pm, m]) => [
      m.cardNumber,
      { paymentMethod: pm, scheme: m.scheme },
    ]),
  );
  ctx.set(
    'Content-Security-Policy',
    `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'; frame-ancestors ${["'self'", ...ancestors].join(' ')}`,
  );
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Sandbox card form</title>
<style nonce="${nonce}">body{font:16px system-ui,sans-serif;margin:1rem}label{display:block;margin-bottom:.25rem}
input{font:inherit;padding:.5rem;width:100%;max-width:20rem;box-sizing:border-box}button{font:inherit;margin-top:.75rem;padding:.5rem 1rem}
#msg{min-height:1.5em}</style></head>
<body><form id="f" novalidate>
<label for="card">Card number (sandbox test cards only)</label>
<input id="card" name="card" inputmode="numeric" autocomplete="off" placeholder="4242 4242 4242 4242" required>
<button type="submit">Use this card</button>
<p id="msg" role="status"></p></form>
<script nonce="${nonce}">
const CARDS = ${scriptJson(cards)};
const TARGET = ${scriptJson(targetOrigin(ctx.query.origin))};
document.getElementById('f').addEventListener('submit', (e) => {
  e.preventDefault();
  const digits = document.getElementById('card').value.replace(/[\\s-]/g, '');
  const card = CARDS[digits];
  const msg = document.getElementById('msg');
  if (!card) { msg.textContent = 'That is not a sandbox test card number.'; return; }
  window.parent.postMessage({ type: ${scriptJson(CARD_FORM_MESSAGE_TYPE)}, paymentMethod: card.paymentMethod, scheme: card.scheme, last4: digits.slice(-4) }, TARGET);
  msg.textContent = 'Card accepted.';
});
</script></body></html>`;
}
