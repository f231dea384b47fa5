/**
 * Rate limits, counted in PostgreSQL (`rate-limiter-flexible`'s RateLimiterPostgres) so every server process shares
 * one budget. A request is charged once its caller is known: an authenticated principal to its own budget; a request
 * without a credential, or whose credential failed, to the client address. Sign-in, code and token endpoints (tools
 * with `rateLimit: 'strict'`) are also charged to a stricter budget, and the document links (a tickets PDF, a wallet
 * pass, a receipt or invoice: each costs a rendering) to a budget of their own per address, as many points as the
 * strict one. Health checks are never charged.
 */
import { Readable } from 'node:stream';
import type { Context, Next } from 'koa';
import { RateLimiterMemory, RateLimiterPostgres, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateGate } from '../domain/context.ts';
import { ToolError } from '../kernel/errors.ts';
import { principalKey, type Principal } from '../kernel/principal.ts';
import type { Database } from '../storage/database.ts';
import { RATE_LIMIT_TABLE, rateLimitStoreClient } from '../storage/rate-limits.ts';
import { bearerOf, RATE_GATE_STATE, sendError } from './http.ts';
import { BudgetCharges, type BudgetState } from './budget-charges.ts';

export type { BudgetState } from './budget-charges.ts';

/** Paths never limited: load balancers and orchestrators poll them. */
const UNLIMITED = new Set(['/healthz', '/readyz']);
/**
 * The pages' static files (scripts, styles, vendor modules, message catalogs): served from memory, reading nothing, so
 * never charged. A page view loads several of them, and buyers behind one NAT share an address (issue #36, 4).
 */
const STATIC_PREFIXES = ['/buyer/assets/', '/console/assets/', '/buyer/i18n/'];
const isStatic = (ctx: Context) =>
  (ctx.method === 'GET' || ctx.method === 'HEAD') && STATIC_PREFIXES.some((p) => ctx.path.startsWith(p));

export interface RateLimitOptions {
  perMinute: number;
  strictPerMinute: number;
}

/**
 * Whose budget a principal's request is charged to. Buyer sessions are charged to their buyer, not to the session, so
 * minting sessions (`scope_buyer_session`, a new sign-in) does not multiply the budget: a full session (the buyer
 * signed in on our own pages) to the buyer; a bounded one, which a merchant mints for any address, to the buyer at that
 * shop, so a merchant can spend neither the buyer's own budget nor another shop's. Every other principal: its own.
 */
export function budgetKey(principal: Principal): string {
  if (principal.kind !== 'buyer') return principalKey(principal);
  const { buyerId, merchantId } = principal;
  return principal.mode === 'full' ? `buyer:${buyerId}` : `buyer:${buyerId}:${merchantId ?? ''}`;
}

/**
 * The shared budgets: per address, per principal, and the strict one; a process-local limiter stands in while
 * PostgreSQL is away.
 */
export class RateLimits {
  private readonly address: RateLimiterAbstract;
  private readonly principal: RateLimiterAbstract;
  private readonly strict: RateLimiterAbstract;
  private readonly documents: RateLimiterAbstract;
  /** Each limiter's budget name (the `RateLimit` headers' policy). */
  private readonly policies = new Map<RateLimiterAbstract, BudgetState['policy']>();

  constructor(db: Database, opts: RateLimitOptions) {
    const storeClient = rateLimitStoreClient(db);
    const limiter = (keyPrefix: string, points: number) =>
      new RateLimiterPostgres({
        storeClient,
        storeType: 'pool',
        tableName: RATE_LIMIT_TABLE,
        tableCreated: true,
        clearExpiredByTimeout: false,
        keyPrefix,
        points,
        duration: 60,
        insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration: 60 }),
      });
    this.address = limiter('addr', opts.perMinute);
    this.principal = limiter('who', opts.perMinute);
    this.strict = limiter('strict', opts.strictPerMinute);
    this.documents = limiter('docs', opts.strictPerMinute);
    this.policies.set(this.address, 'address').set(this.principal, 'caller').set(this.strict, 'strict');
    this.policies.set(this.documents, 'documents');
  }

  /** The grouped charges of every budget (src/http/budget-charges.ts). */
  readonly charges = new BudgetCharges();

  /** Charges one point to `key` on `limiter`; throws `rate_limited` past the budget (BudgetCharges). */
  private consume(limiter: RateLimiterAbstract, key: string, seen?: (b: BudgetState) => void): Promise<BudgetState> {
    return this.charges.charge(limiter, this.policies.get(limiter)!, key, seen);
  }

  /**
   * The gate for one request from `ip`; `charged` says whether the address was charged already (no credential);
   * `verified` is the principal a surface authenticated without charging it (an MCP request that runs no tool).
   */
  gate(ip: string, addressCharged: boolean): RequestGate {
    const gate: RequestGate = {
      charged: addressCharged,
      verified: undefined,
      budgets: [],
      charge: async (principal: Principal | undefined, strict: boolean) => {
        const key = principal ? budgetKey(principal) : `ip:${ip}`;
        const seen = (b: BudgetState) => gate.budgets.push(b);
        if (!gate.charged) {
          gate.charged = true;
          await this.consume(principal ? this.principal : this.address, key, seen);
        }
        if (strict) await this.consume(this.strict, key, seen);
      },
      document: async () => void (await this.consume(this.documents, `ip:${ip}`, (b) => gate.budgets.push(b))),
    };
    return gate;
  }

  /** Charges the address for a request without a credential, or refuses it. */
  async chargeAddress(ip: string, seen?: (b: BudgetState) => void): Promise<void> {
    await this.consume(this.address, `ip:${ip}`, seen);
  }

  /** Charges a verified principal's own budget, or refuses it. */
  async chargePrincipal(principal: Principal, seen?: (b: BudgetState) => void): Promise<void> {
    await this.consume(this.principal, budgetKey(principal), seen);
  }
}

/**
 * One request's gate: whether it was charged, the principal a surface verified without charging it, and what each
 * budget charged said (for the answer's headers).
 */
export type RequestGate = RateGate & {
  charged: boolean;
  verified: Principal | undefined;
  budgets: BudgetState[];
  /** Charges the address's document budget (`chargeDocument`). */
  document(): Promise<void>;
};

/**
 * Sets `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers: `"caller";q=600;w=60` and
 * `"caller";r=599;t=60`) from the budgets the request was charged to, when the answer is not on its way yet.
 */
function setRateLimitHeaders(ctx: Context, budgets: readonly BudgetState[]): void {
  if (budgets.length === 0 || ctx.headerSent || ctx.respond === false) return;
  // A refusal for load (admission control, 503 unavailable) is answered the same before Koa, where nothing is
  // charged: it carries Retry-After only. A 429 of a spent budget says which.
  const forLoad = (ctx.status === 429 || ctx.status === 503) && !budgets.some((b) => b.exceeded);
  if (forLoad) return;
  ctx.set('RateLimit-Policy', budgets.map((b) => `"${b.policy}";q=${b.limit};w=60`).join(', '));
  ctx.set('RateLimit', budgets.map((b) => `"${b.policy}";r=${b.remaining};t=${b.resetSeconds}`).join(', '));
}

/**
 * The middleware: a request without a credential is charged to its address up front; one with a credential is charged
 * where the credential is checked (`RateGate`, via the request info the surfaces hand the orchestrator): to its
 * principal, or, when it fails, to the address, refused with 429 once the address is spent. A route that acts without
 * checking credentials (the OAuth endpoints, an A2A call whose bearer failed) charges the address itself before acting
 * (`chargeUnverified`). A surface that verified the credential but ran no tool (an MCP `initialize` or `tools/list`)
 * names the principal (`verified`), whose budget pays before the answer leaves. If nothing checked the credential by
 * the answer (a metrics scrape, the OpenAPI document, an unknown route), the address pays before the answer leaves,
 * and a spent address gets 429 instead of it: a bearer nobody verified never buys a way past the address's budget.
 * Only a refusal already given for load (429, 503) is charged after it is sent, so overload refusals never wait for a
 * counter statement.
 */
export function rateLimit(limits: RateLimits) {
  return async (ctx: Context, next: Next) => {
    if (UNLIMITED.has(ctx.path) || isStatic(ctx)) {
      await next();
      return;
    }
    const ip = ctx.ip;
    const hasCredential = Boolean(bearerOf(ctx));
    const gate = limits.gate(ip, !hasCredential);
    const seen = (b: BudgetState) => gate.budgets.push(b);
    if (!hasCredential) {
      try {
        await limits.chargeAddress(ip, seen);
      } catch (err) {
        if (!(err instanceof ToolError)) throw err;
        sendError(ctx, err.status, err.toBody());
        setRateLimitHeaders(ctx, gate.budgets);
        return;
      }
    }
    ctx.state[RATE_GATE_STATE] = gate;
    try {
      await next();
    } finally {
      setRateLimitHeaders(ctx, gate.budgets);
    }
    if (gate.charged) return;
    gate.charged = true;
    // A credential a surface verified pays its principal's budget; any other, the address's.
    const verified = gate.verified;
    const charge = () => (verified ? limits.chargePrincipal(verified, seen) : limits.chargeAddress(ip, seen));
    // A load refusal, or an answer some route already wrote itself: charged without holding anything back. The charge
    // joins its key's queue now, so a later request of this address is charged after it.
    if (ctx.status === 429 || ctx.status === 503 || ctx.respond === false || ctx.headerSent) {
      void charge().catch(() => undefined);
      return;
    }
    try {
      await charge();
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      if (ctx.body instanceof Readable) ctx.body.destroy();
      for (const name of DROPPED_HEADERS) ctx.remove(name);
      ctx.set('Cache-Control', 'no-store');
      sendError(ctx, err.status, err.toBody());
    }
    setRateLimitHeaders(ctx, gate.budgets);
  };
}

/** Headers of the answer a 429 replaces that would describe it instead (the security headers stay). */
const DROPPED_HEADERS = ['etag', 'last-modified', 'location', 'content-disposition', 'www-authenticate', 'allow'];
