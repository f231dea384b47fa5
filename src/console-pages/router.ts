/**
 * Serves the console application: the same HTML for every /console/... path (the app picks the view from the URL, so
 * deep links and reloads work), its bundle (built from ./app by ./build.ts), its stylesheets and its messages, all
 * under a strict CSP (no inline script or style).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';
import type { Context } from 'koa';
import { loadCatalogs, type Catalogs } from '../i18n/i18n.ts';
import { ensureConsoleBuilt, type ConsoleBundle } from './build.ts';

const CONSOLE_LOCALES = fileURLToPath(new URL('../i18n/locales/console/', import.meta.url));
const STYLES: Record<string, Buffer> = {
  'console.css': readFileSync(fileURLToPath(new URL('./assets/console.css', import.meta.url))),
  'uplot.css': readFileSync(fileURLToPath(import.meta.resolve('uplot/dist/uPlot.min.css'))),
};

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

/** The application's one document; `version` (the bundle's content hash) makes a new build bypass caches. */
export function consoleDocument(version: string): string {
  return `<!doctype html>
<html lang="en" dir="ltr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light dark">
<title>Tessera console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/buyer/assets/buyer.css">
<link rel="stylesheet" href="/console/assets/uplot.css">
<link rel="stylesheet" href="/console/assets/console.css">
<script type="module" src="/console/assets/console.js?v=${version}"></script>
</head>
<body>
<div id="app"><noscript><p class="notice">The console needs JavaScript.</p></noscript></div>
</body>
</html>
`;
}

export interface ConsoleRouterOptions {
  /** The bundle (default: built or found by content hash at start, in the background). */
  bundle?: Promise<ConsoleBundle>;
  catalogs?: Catalogs;
}

export function buildConsolePagesRouter(options: ConsoleRouterOptions = {}): Router {
  const catalogs = options.catalogs ?? loadCatalogs(CONSOLE_LOCALES);
  // Settled once; a failed build answers 503 for the script (the page then says the console needs JavaScript).
  const bundle: Promise<{ script: Buffer; hash: string } | null> = (options.bundle ?? ensureConsoleBuilt()).then(
    (b) => ({ script: readFileSync(join(b.dir, b.script)), hash: b.hash }),
    () => null,
  );
  const router = new Router();
  const page = async (ctx: Context) => {
    const built = await bundle;
    securityHeaders(ctx);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = consoleDocument(built?.hash ?? 'unbuilt');
  };
  router.get('/console/assets/console.js', async (ctx) => {
    const built = await bundle;
    if (!built) {
      ctx.status = 503;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = 'The console is not built: run npm run console:build.';
      return;
    }
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = built.script;
  });
  router.get('/console/assets/:file', (ctx) => {
    const css = STYLES[ctx.params.file ?? ''];
    if (!css) {
      ctx.status = 404;
      return;
    }
    ctx.type = 'text/css; charset=utf-8';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = css;
  });
  /** The app's messages: the language's over English (an unavailable language: English, said in `lang`). */
  router.get('/console/assets/i18n/:file', (ctx) => {
    const asked = /^([A-Za-z-]{2,8})\.json$/.exec(ctx.params.file ?? '')?.[1];
    if (!asked) {
      ctx.status = 404;
      return;
    }
    const lang = catalogs.resolve([asked]);
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = { lang, messages: catalogs.messages(lang) };
  });
  router.get('/console', page);
  router.get('/console/{*rest}', page);
  return router;
}
