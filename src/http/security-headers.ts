/**
 * The security headers every response carries (JSON, pages, docs, errors), from `koa-helmet` (helmet's
 * maintained defaults: HSTS, nosniff, frame and opener policies, referrer policy…). The baseline CSP is the
 * strictest there is, right for JSON; a page sets its own CSP on top (buyer pages, docs, the card form).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';
import koaHelmet from 'koa-helmet';
import type { Middleware } from 'koa';

const OPTIONS: HelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] },
  },
  referrerPolicy: { policy: 'no-referrer' },
};

export function securityHeaders(): Middleware {
  return koaHelmet(OPTIONS);
}

/** The same headers on a plain Node response (an answer before Koa: `admitBeforeKoa`, src/http/early-admission.ts). */
export function setSecurityHeaders(): (req: IncomingMessage, res: ServerResponse) => void {
  const set = helmet(OPTIONS);
  return (req, res) =>
    set(req, res, (err?: unknown) => {
      if (err) throw err;
    });
}
