/**
 * Page sessions on REST (docs/console.md, "Sessions"): the console and the buyer pages present an HttpOnly,
 * SameSite=Strict cookie instead of a bearer, and only together with the `X-Tessera-Session` header, which a
 * cross-site form cannot send and a cross-origin fetch cannot send without a preflight nobody allows.
 */
import type { Context } from 'koa';
import { ToolError } from '../kernel/errors.ts';
import { bearerOf } from './http.ts';
import type { InvokeResult, PageSessionIssuer } from '../orchestrator/invoke.ts';
import type { AnyTool } from '../orchestrator/tool.ts';
import type { WebSessionKind } from '../storage/web-sessions.ts';

/** The header a page sends to present its session cookie: `console` or `buyer`. */
export const PAGE_SESSION_HEADER = 'x-tessera-session';

/** The cookie of a page session: `__Host-` prefixed when the request is https (then always `Secure`). */
export function pageCookieName(kind: WebSessionKind, secure: boolean): string {
  return `${secure ? '__Host-' : ''}tessera_${kind}`;
}

/** Whether cookies go out `Secure`: an https request, or a public URL that is https (behind a TLS proxy). */
function isSecure(ctx: Context, publicUrl: string): boolean {
  return ctx.secure || publicUrl.startsWith('https:');
}

/**
 * The page session a request presents: none without the header; its kind and its cookie's value (if any) with it.
 * A cross-site request with the header (`Origin` not this service's, or `Sec-Fetch-Site` not `same-origin`) is 403.
 */
export function presentedPageSession(
  ctx: Context,
  publicUrl: string,
): { kind: WebSessionKind; token: string | undefined } | undefined {
  const asked = ctx.get(PAGE_SESSION_HEADER).trim().toLowerCase();
  if (!asked) return undefined;
  if (asked !== 'console' && asked !== 'buyer') {
    throw new ToolError('invalid_input', `${PAGE_SESSION_HEADER} must be console or buyer.`);
  }
  const origin = ctx.get('origin');
  const site = ctx.get('sec-fetch-site');
  // The request's own origin (in Koa 3 `ctx.origin` is the Origin header itself).
  const own = `${ctx.protocol}://${ctx.host}`;
  if ((origin && origin !== own && origin !== originOf(publicUrl)) || (site && site !== 'same-origin')) {
    throw new ToolError('forbidden', 'A page session is accepted only from this service’s own pages.');
  }
  const token = ctx.cookies.get(pageCookieName(asked, isSecure(ctx, publicUrl))) || undefined;
  return { kind: asked, token };
}

/**
 * The credential a REST request presents, for `Orchestrator.invoke`: its bearer, else its page session's cookie (with
 * `pageSession` naming the kind) when the page sent the header. Throws 403 as `presentedPageSession` does.
 */
export function credentialOf(
  ctx: Context,
  publicUrl: string,
): { credential: string | undefined; pageSession: WebSessionKind | undefined } {
  const bearer = bearerOf(ctx);
  if (bearer) return { credential: bearer, pageSession: undefined };
  const page = presentedPageSession(ctx, publicUrl);
  return page?.token
    ? { credential: page.token, pageSession: page.kind }
    : { credential: undefined, pageSession: undefined };
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

/**
 * The companion cookie a page's script may read (`<name>_signed_in=1`, no secret, same attributes and end but not
 * HttpOnly): whether to ask for the session at load, so a signed-out visitor's page makes no call that answers 401.
 */
export function pageHintCookieName(kind: WebSessionKind, secure: boolean): string {
  return `${pageCookieName(kind, secure)}_signed_in`;
}

/**
 * After a call a page made with its session header: a tool that opens a session of that kind sets the cookie and its
 * companion (and the answer's bearer `token` becomes "", so the page never holds one); one that ends it clears both.
 */
export async function applyPageSession(
  ctx: Context,
  publicUrl: string,
  issuer: PageSessionIssuer | undefined,
  tool: AnyTool,
  page: { kind: WebSessionKind } | undefined,
  result: InvokeResult,
): Promise<InvokeResult> {
  const effect = tool.pageSession;
  if (!effect || !page || page.kind !== effect.kind) return result;
  const secure = isSecure(ctx, publicUrl);
  ctx.cookies.secure = secure;
  const name = pageCookieName(page.kind, secure);
  const hint = pageHintCookieName(page.kind, secure);
  const attributes = { httpOnly: true, sameSite: 'strict', path: '/', secure, overwrite: true } as const;
  if (effect.effect === 'ends') {
    ctx.cookies.set(name, '', { ...attributes, expires: new Date(0) });
    ctx.cookies.set(hint, '', { ...attributes, httpOnly: false, expires: new Date(0) });
    return result;
  }
  if (!result.ok || !issuer || typeof result.output.token !== 'string') return result;
  const presented = result.principal;
  const replaces = presented.kind === 'console_user' || presented.kind === 'buyer' ? presented.webSessionId : undefined;
  const opened = await issuer.openPageSession(page.kind, result.output.token, replaces);
  ctx.cookies.set(name, opened.token, { ...attributes, expires: opened.expiresAt });
  ctx.cookies.set(hint, '1', { ...attributes, httpOnly: false, expires: opened.expiresAt });
  return { ...result, output: { ...result.output, token: '' } };
}
