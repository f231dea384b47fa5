/**
 * The security headers every response carries (JSON, pages, docs, errors), from `koa-helmet` (helmet's
 * maintained defaults: HSTS, nosniff, frame and opener policies, referrer policy…). The baseline CSP is the
 * strictest there is, right for JSON; a page sets its own CSP on top (buyer pages, docs, the card form).
 */
import helmet from 'koa-helmet';
import type { Middleware } from 'koa';

export function securityHeaders(): Middleware {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] },
    },
    referrerPolicy: { policy: 'no-referrer' },
  });
}
