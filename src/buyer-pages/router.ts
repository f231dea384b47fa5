/**
 * The service's own buyer pages (/buyer/...): server-rendered in the buyer's language, with their script and
 * style served from ./assets. The pages call the public REST API with a bearer held in the script's memory.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Catalogs } from '../i18n/i18n.ts';
import type { Services } from '../domain/context.ts';
import { requestInfo } from '../http/http.ts';
import { renderDocument, type PageContext, type PageDefinition } from './layout.ts';
import { agentsPage, cardsPage, permissionsPage } from './pages-account.ts';
import { signInPage, verifyPage } from './pages-sign-in.ts';
import { ticketsPage } from './pages-tickets.ts';
import { renderConsentView } from './consent-page.ts';
import { consentViewShop } from '../domain/buyers/embed-access.ts';
import { deriveTheme, themeCss, themeProblem, type ThemeInput } from '../domain/buyers/consent-theme.ts';

import { authorizePage } from './pages-authorize.ts';
import { limitRaisePage } from './pages-limit-raise.ts';
import { offerPage } from './pages-offer.ts';

export const BUYER_PAGES: readonly PageDefinition[] = [
  signInPage,
  verifyPage,
  agentsPage,
  cardsPage,
  permissionsPage,
  ticketsPage,
  authorizePage,
  limitRaisePage,
  offerPage,
];

const ASSETS_DIR = fileURLToPath(new URL('./assets/', import.meta.url));
const TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };
const SHOP_ID = /^shop_[0-9a-z]{10,40}$/;
const INTERACTION_ID = /^[A-Za-z0-9_-]{8,64}$/;
const LIMIT_RAISE_ID = /^lrr_[0-9a-z]{10,40}$/;
const RESERVATION_ID = /^rsv_[0-9a-z]{10,40}$/;

/**
 * The pages' CSP over the baseline: scripts and styles only from this origin (no inline code), frames only the card
 * form, and only framed by our own pages.
 */
function securityHeaders(ctx: Context, services: Services): void {
  let provider = '';
  try {
    provider = ` ${new URL(services.publicUrl()).origin}`;
  } catch {
    /* no public URL: 'self' only */
  }
  ctx.set(
    'Content-Security-Policy',
    [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      "connect-src 'self'",
      `frame-src 'self'${provider}`,
      "form-action 'self'",
      "base-uri 'none'",
      "frame-ancestors 'self'",
    ].join('; '),
  );
  // The rest of the security headers come from the koa-helmet baseline every response carries.
  ctx.set('Cache-Control', 'no-store');
}

/** The static files the pages load: the files in ./assets and i18next's browser module. */
function loadAssets(): Map<string, { type: string; body: Buffer }> {
  const assets = new Map<string, { type: string; body: Buffer }>();
  for (const file of readdirSync(ASSETS_DIR)) {
    const type = TYPES[file.split('.').pop() ?? ''];
    if (type) assets.set(file, { type, body: readFileSync(`${ASSETS_DIR}/${file}`) });
  }
  assets.set('vendor/i18next.js', {
    type: TYPES.js!,
    body: readFileSync(fileURLToPath(import.meta.resolve('i18next'))),
  });
  return assets;
}

/** The language of a page: an explicit `?lang=`, else the browser's Accept-Language, else English. */
export function pageLang(ctx: Context, catalogs: Catalogs): string {
  const explicit = typeof ctx.query.lang === 'string' ? ctx.query.lang : undefined;
  return catalogs.resolve([explicit, ...(requestInfo(ctx, 'rest').languages ?? [])]);
}

/** `?theme=` (base64url JSON) as a well-formed theme, `null` when absent, `'invalid'` when it cannot be used. */
function themeOf(raw: unknown): ThemeInput | null | 'invalid' {
  if (raw === undefined) return null;
  if (typeof raw !== 'string' || raw.length > 2000 || !/^[A-Za-z0-9_-]+$/.test(raw)) return 'invalid';
  try {
    const value: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (!value || typeof value !== 'object' || Array.isArray(value)) return 'invalid';
    return themeProblem(value as Record<string, unknown>) ? 'invalid' : (value as ThemeInput);
  } catch {
    return 'invalid';
  }
}

/**
 * The consent view's headers: the pages' CSP, but framed only by the shop's embed origins (none: `'none'`), and
 * no opener isolation, so a popup the partner opened keeps `window.opener` to post its events to.
 */
function consentHeaders(ctx: Context, services: Services, ancestors: readonly string[]): void {
  securityHeaders(ctx, services);
  const csp = ctx.response.get('Content-Security-Policy') as string;
  ctx.set(
    'Content-Security-Policy',
    csp.replace("frame-ancestors 'self'", `frame-ancestors ${ancestors.length ? ancestors.join(' ') : "'none'"}`),
  );
  ctx.remove('X-Frame-Options');
  ctx.set('Cross-Origin-Opener-Policy', 'unsafe-none');
}

export function buildBuyerPagesRouter(deps: { services: Services; catalogs?: Catalogs }): Router {
  const { services } = deps;
  const catalogs = deps.catalogs ?? services.catalogs;
  const assets = loadAssets();
  const router = new Router();

  router.get('/buyer', (ctx) => {
    ctx.redirect(`/buyer/sign-in${ctx.querystring ? `?${ctx.querystring}` : ''}`);
  });

  for (const page of BUYER_PAGES) {
    router.get(page.path, (ctx) => {
      const lang = pageLang(ctx, catalogs);
      const merchantId =
        typeof ctx.query.merchantId === 'string' && SHOP_ID.test(ctx.query.merchantId)
          ? ctx.query.merchantId
          : undefined;
      // The OAuth authorization a page is finishing (/buyer/authorize): kept when the buyer changes the language.
      const interaction =
        typeof ctx.query.interaction === 'string' && INTERACTION_ID.test(ctx.query.interaction)
          ? ctx.query.interaction
          : undefined;
      // The limit-raise request a page answers (/buyer/limit-raise): kept when the buyer changes the language.
      const raise =
        typeof ctx.query.request === 'string' && LIMIT_RAISE_ID.test(ctx.query.request) ? ctx.query.request : undefined;
      // The waiting-list offer a page answers (/buyer/offer): kept when the buyer changes the language.
      const offer =
        typeof ctx.query.reservation === 'string' && RESERVATION_ID.test(ctx.query.reservation)
          ? ctx.query.reservation
          : undefined;
      const pageCtx: PageContext = {
        t: catalogs.translator(lang),
        lang,
        merchantId,
        href(path, extra = {}) {
          const q = new URLSearchParams({
            lang,
            ...(merchantId ? { merchantId } : {}),
            ...(interaction && path === page.path ? { interaction } : {}),
            ...(raise && path === page.path ? { request: raise } : {}),
            ...(offer && path === page.path ? { reservation: offer } : {}),
          });
          for (const [k, v] of Object.entries(extra)) if (v !== undefined) q.set(k, v);
          return `${path}?${q}`;
        },
      };
      securityHeaders(ctx, services);
      ctx.set('Content-Language', lang);
      ctx.set('Vary', 'Accept-Language');
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = renderDocument(catalogs, page, pageCtx);
    });
  }

  /**
   * The embeddable consent view (docs/embedding.md): `?shop=&origin=[&mode=][&theme=][&lang=]`; never a session in the
   * URL.
   */
  router.get('/embed/consent', async (ctx) => {
    const lang = pageLang(ctx, catalogs);
    const q = ctx.query;
    const shopId = typeof q.shop === 'string' && SHOP_ID.test(q.shop) ? q.shop : '';
    const shop = shopId ? await consentViewShop(services.db, shopId) : null;
    const ancestors = shop?.embedOrigins ?? [];
    const origin = typeof q.origin === 'string' && ancestors.includes(q.origin) ? q.origin : null;
    const theme = themeOf(q.theme);
    consentHeaders(ctx, services, ancestors);
    ctx.set('Content-Language', lang);
    ctx.set('Vary', 'Accept-Language');
    ctx.status = !shop ? 404 : origin ? 200 : 400;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = renderConsentView({
      t: catalogs.translator(lang),
      lang,
      shopId,
      shopName: shop?.name ?? null,
      origin,
      mode: q.mode === 'popup' ? 'popup' : 'iframe',
      themeHref: theme && theme !== 'invalid' ? `/embed/theme.css?theme=${encodeURIComponent(String(q.theme))}` : null,
      themeError: theme === 'invalid' ? 'theme_invalid' : null,
      langFixed: typeof q.lang === 'string' && q.lang === lang,
    });
  });

  /** The consent view's theme as a stylesheet from this origin (no inline style): colours derived with AA contrast. */
  router.get('/embed/theme.css', (ctx) => {
    const theme = themeOf(ctx.query.theme);
    if (!theme || theme === 'invalid') {
      ctx.status = 404;
      return;
    }
    ctx.type = 'text/css; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = themeCss(deriveTheme(theme));
  });

  /** The page script's catalog: the language's messages over English. */
  router.get('/buyer/i18n/:file', (ctx) => {
    const lang = /^([A-Za-z-]{2,8})\.json$/.exec(ctx.params.file ?? '')?.[1];
    if (!lang || catalogs.resolve([lang]) !== lang) {
      ctx.status = 404;
      return;
    }
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = { lang, messages: catalogs.messages(lang) };
  });

  const serveAsset = (ctx: Context, name: string) => {
    const asset = assets.get(name);
    if (!asset) {
      ctx.status = 404;
      return;
    }
    ctx.type = asset.type;
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = asset.body;
  };
  router.get('/buyer/assets/:file', (ctx) => serveAsset(ctx, ctx.params.file ?? ''));
  router.get('/buyer/assets/vendor/:file', (ctx) => serveAsset(ctx, `vendor/${ctx.params.file ?? ''}`));
  return router;
}
