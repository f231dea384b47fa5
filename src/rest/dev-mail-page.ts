/**
 * /dev/mail: the development mail outbox as a page. It exists only while no SMTP server is configured
 * and the server listens on loopback, because the mail it shows holds sign-in links and codes; and it answers only
 * this server's own Host values (DNS rebinding).
 */
import Router from '@koa/router';
import type { Config } from '../kernel/config.ts';
import { escapeHtml } from '../buyer-pages/html.ts';
import { listOutboxMail } from '../mail/outbox.ts';
import type { Database } from '../storage/database.ts';
import { hostRefusal, type HostAllowListDeps } from '../http/host-allow-list.ts';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export function devMailEnabled(config: Config): boolean {
  return !config.smtpUrl && LOOPBACK.has(config.host);
}

/** `hosts`: the same Host allow-list as `/mcp`, so a page on another origin cannot read the outbox by DNS rebinding. */
export function buildDevMailRouter(db: Database, hosts: HostAllowListDeps): Router {
  const router = new Router();
  router.get('/dev/mail', async (ctx) => {
    const refused = hostRefusal(ctx, hosts);
    if (refused) {
      ctx.status = 403;
      ctx.body = { code: 'forbidden', message: refused };
      return;
    }
    const to =
      typeof ctx.query.to === 'string' && ctx.query.to && !ctx.query.to.includes('\u0000') ? ctx.query.to : undefined;
    const mail = await listOutboxMail(db, { to, limit: 50 });
    const items = mail
      .map(
        (m) =>
          `<article><h2>${escapeHtml(m.subject)}</h2><p class="meta">To ${escapeHtml(m.to)} · <time datetime="${m.createdAt}">${m.createdAt}</time></p><pre>${escapeHtml(m.text)}</pre></article>`,
      )
      .join('\n');
    ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Development mail outbox</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem}
pre{white-space:pre-wrap;background:#f4f4f5;padding:1rem;border-radius:6px}.meta{color:#52525b}</style></head>
<body><main><h1>Development mail outbox</h1>
<p>Mail the server would have sent (no SMTP_URL is configured). Newest first.${to ? ` Only mail to ${escapeHtml(to)}.` : ''}</p>
<form method="get" action="/dev/mail"><label for="to">Recipient</label> <input id="to" name="to" type="email" value="${escapeHtml(to ?? '')}"> <button>Filter</button></form>
${items || '<p>No mail yet.</p>'}</main></body></html>`;
  });
  return router;
}
