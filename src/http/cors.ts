/**
 * CORS on the REST buyer routes (`/v1/buyer/...`) for partner pages (spec §5.7), bearer only: never
 * `Access-Control-Allow-Credentials`, never `*`. The rule lives in `src/domain/buyers/embed-access.ts`: a preflight
 * (no bearer) is allowed for an embed origin of some shop; the actual answer names the origin only when the bearer's
 * session is for a shop listing it. Requests from this service's own origin, or without `Origin`, are not touched.
 */
import type { Context, Middleware, Next } from 'koa';
import type { Services } from '../domain/context.ts';
import { isAnyShopsEmbedOrigin, mayReadBuyerApiFrom } from '../domain/buyers/embed-access.ts';
import type { Principal } from '../kernel/principal.ts';
import { bearerOf } from './http.ts';

const BUYER_API = '/v1/buyer/';
const METHODS = 'GET, POST, PUT, PATCH, DELETE';
const HEADERS = 'authorization, content-type, accept, idempotency-key';
const EXPOSED = 'retry-after, idempotent-replayed, ratelimit, ratelimit-policy';

export function buyerApiCors(
  services: Services,
  principalOf: (bearer: string | undefined) => Promise<Principal>,
): Middleware {
  return async (ctx: Context, next: Next) => {
    const origin = ctx.get('origin');
    if (!ctx.path.startsWith(BUYER_API) || !origin) {
      await next();
      return;
    }
    let own = '';
    try {
      own = new URL(services.publicUrl()).origin;
    } catch {
      /* no public URL */
    }
    if (origin === own) {
      await next();
      return;
    }
    ctx.vary('Origin');
    if (ctx.method === 'OPTIONS' && ctx.get('access-control-request-method')) {
      ctx.status = 204;
      if (await isAnyShopsEmbedOrigin(services.db, origin)) {
        ctx.set('Access-Control-Allow-Origin', origin);
        ctx.set('Access-Control-Allow-Methods', METHODS);
        ctx.set('Access-Control-Allow-Headers', HEADERS);
        ctx.set('Access-Control-Max-Age', '600');
      }
      return;
    }
    let principal: Principal | undefined;
    try {
      principal = await principalOf(bearerOf(ctx));
    } catch {
      principal = undefined;
    }
    if (principal && (await mayReadBuyerApiFrom(services.db, principal, origin))) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Expose-Headers', EXPOSED);
    }
    await next();
  };
}
