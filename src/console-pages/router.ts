/** Serves the console pages and their script with the same strict security headers as the buyer pages. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';
import type { Context } from 'koa';
import { CONSOLE_PAGES, renderConsolePage } from './pages.ts';

const SCRIPT = readFileSync(fileURLToPath(new URL('./assets/console.js', import.meta.url)));

function securityHeaders(ctx: Context): void {
  ctx.set(
    'Content-Security-Policy',
    [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      "connect-src 'self'",
      "form-action 'self'",
      "base-uri 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
  );
  ctx.set('Cache-Control', 'no-store');
}

export function buildConsolePagesRouter(): Router {
  const router = new Router();
  router.get('/console', (ctx) => ctx.redirect('/console/sign-in'));
  for (const page of CONSOLE_PAGES) {
    const body = renderConsolePage(page);
    router.get(page.path, (ctx) => {
      securityHeaders(ctx);
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = body;
    });
  }
  router.get('/console/assets/console.js', (ctx) => {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = SCRIPT;
  });
  return router;
}
