/** The human-readable API reference at /docs: Swagger UI served from the locally installed swagger-ui-dist (no CDN). */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Router from '@koa/router';

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Tessera API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <nav aria-label="Documentation"><a href="/docs/changelog">Changes</a></nav>
  <main id="reference" aria-label="Tessera API reference"></main>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>`;

const INIT = `window.ui = SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#reference', deepLinking: true });`;

/** The repository's CHANGELOG.md, read once: served as Markdown and as a plain page next to the reference. */
const CHANGELOG_FILE = join(import.meta.dirname, '..', '..', 'CHANGELOG.md');

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function changelogPage(markdown: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Tessera API changes</title>
</head>
<body>
  <nav aria-label="Documentation"><a href="/docs">API reference</a> · <a href="/docs/changelog.md">Markdown</a></nav>
  <main><pre style="white-space: pre-wrap; font: 1rem/1.5 system-ui, sans-serif; max-width: 50rem">${escapeHtml(markdown)}</pre></main>
</body>
</html>`;
}

export function buildDocsRouter(): Router {
  let changelog: string | undefined;
  const readChangelog = () => (changelog ??= readFileSync(CHANGELOG_FILE, 'utf8'));
  const dir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const cache = new Map<string, Buffer>();
  const router = new Router();
  router.get('/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Content-Security-Policy', "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'");
    ctx.body = PAGE;
  });
  router.get('/docs/changelog', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
    ctx.body = changelogPage(readChangelog());
  });
  router.get('/docs/changelog.md', (ctx) => {
    ctx.type = 'text/markdown; charset=utf-8';
    ctx.body = readChangelog();
  });
  router.get('/docs/init.js', (ctx) => {
    ctx.type = 'application/javascript; charset=utf-8';
    ctx.body = INIT;
  });
  router.get('/docs/assets/:file', (ctx) => {
    const file = ctx.params.file ?? '';
    const type = ASSETS[file];
    if (!type) {
      ctx.status = 404;
      return;
    }
    let body = cache.get(file);
    if (!body) {
      body = readFileSync(join(dir, file));
      cache.set(file, body);
    }
    ctx.type = type;
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = body;
  });
  return router;
}
