/** Koa routes generated from the tool registry: each translates HTTP to an orchestrator call and back. */
import Router from '@koa/router';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Context, Middleware } from 'koa';
import type { HttpMetrics } from '../http/middleware.ts';
import type { Orchestrator, InvokeResult } from '../orchestrator/invoke.ts';
import { ToolError } from '../kernel/errors.ts';
import type { AnyTool } from '../orchestrator/tool.ts';
import { pathParams } from './openapi.ts';
import { parseJsonObject, readRaw } from '../http/read-body.ts';
import { BEARER, requestInfo, bearerOf, sendError } from '../http/http.ts';
import { answerCacheable } from '../http/conditional.ts';

/** `/v1/a/{id}` → `/v1/a/:id`. */
export function koaPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/**
 * Collects the tool input from path, query and body; a body field that belongs in the path is refused. `names`: the
 * path's parameters (parsed once per route).
 */
async function collectInput(ctx: Context, tool: AnyTool, names: readonly string[]): Promise<Record<string, unknown>> {
  // Own data properties only (Object.fromEntries, spread): assigning a `__proto__` key would replace the prototype.
  let input: Record<string, unknown> = {};
  if (tool.http.method === 'GET' || tool.http.method === 'DELETE') {
    input = Object.fromEntries(Object.entries(ctx.query));
  } else {
    const body = parseJsonObject(await readRaw(ctx.req), ctx.get('content-type') || undefined);
    for (const name of names) {
      if (name in body) throw new ToolError('unknown_field', `Unknown field: ${name} (it belongs in the path).`, { field: name, fields: [name] });
    }
    input = { ...body };
  }
  for (const name of names) input[name] = ctx.params[name];
  return input;
}

export function respond(ctx: Context, result: InvokeResult): void {
  if (result.replayed) ctx.set('Idempotent-Replayed', 'true');
  if (result.ok) {
    ctx.status = result.status;
    ctx.body = result.output;
    return;
  }
  sendError(ctx, result.status, result.error);
}

/** Where `admitBeforeRouting` leaves a call's admission for its route. */
const ADMITTED_STATE = 'tessera.admitted';

/** The tools with admission control (`tool.admit`: reserve) at a path without parameters (so the path is also its Koa route), by `METHOD /path`. */
function admissionTools(orchestrator: Orchestrator): Map<string, AnyTool> {
  const tools = new Map<string, AnyTool>();
  for (const tool of orchestrator.tools) {
    if (tool.admit && pathParams(tool.http.path).length === 0) tools.set(`${tool.http.method} ${tool.http.path}`, tool);
  }
  return tools;
}

/** Admissions made before Koa (`admitBeforeKoa`), which `admitBeforeRouting` hands to the route. */
const earlyAdmissions = new WeakMap<IncomingMessage, () => void>();

export interface EarlyAdmissionDeps {
  orchestrator: Orchestrator;
  metrics: HttpMetrics;
  /** The security headers Koa's first middleware sets (`setSecurityHeaders`). */
  securityHeaders: (req: IncomingMessage, res: ServerResponse) => void;
  /** Charges a refused call's address, as the rate-limit middleware does after any answer given before a credential is checked. */
  chargeAddress: (ip: string) => void;
}

/**
 * Admission control before Koa, for a call with a bearer credential at the exact path of a tool with admission: under
 * overload most answers are 429 refusals, and each one's CPU delays the admitted calls on the same event loop (at a
 * sale's opening, hundreds of refusals are read in the turns the first batch's database replies wait behind;
 * docs/performance.md). So a refusal is answered here, from Node's request handler, with what Koa's middleware would
 * have given it (the security headers, `Cache-Control: no-store`, the JSON error body with `Retry-After`, the metrics
 * under the route's label, the address's rate-limit charge after the answer), without Koa's context, middleware chain
 * or response handling. An admitted call goes on to Koa with its admission, which `admitBeforeRouting` hands to the
 * route; it is released when the call is answered, or when its connection closes first. Any other request (another
 * path or spelling of it, a call without a credential, whose address is charged before anything else) goes to Koa as
 * before.
 */
export function admitBeforeKoa(deps: EarlyAdmissionDeps, next: RequestListener): RequestListener {
  const tools = admissionTools(deps.orchestrator);
  return (req, res) => {
    const url = req.url ?? '';
    const query = url.indexOf('?');
    const tool = tools.size ? tools.get(`${req.method} ${query < 0 ? url : url.slice(0, query)}`) : undefined;
    if (!tool || !BEARER.test(req.headers.authorization ?? '')) return next(req, res);
    const started = performance.now();
    let release: () => void;
    try {
      release = deps.orchestrator.admit(tool.name);
    } catch (err) {
      if (!(err instanceof ToolError)) return next(req, res); // Koa admits it again and answers whatever happens
      const body = err.toBody();
      const text = JSON.stringify(body);
      res.statusCode = err.status;
      deps.securityHeaders(req, res);
      res.setHeader('Cache-Control', 'no-store');
      if (body.retryAfter !== undefined) res.setHeader('Retry-After', String(body.retryAfter));
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Content-Length', Buffer.byteLength(text));
      res.end(text);
      deps.metrics.record(req.method ?? 'POST', tool.http.path, err.status, started); // no parameters: the path is the route's label
      deps.chargeAddress(req.socket.remoteAddress ?? '');
      return;
    }
    earlyAdmissions.set(req, release);
    res.once('close', release); // released once (idempotent): answered, or the connection gone before an answer
    return next(req, res);
  };
}

/**
 * Admission control before routing, for the tools that have it, for calls not admitted before Koa already
 * (`admitBeforeKoa`: those without a credential, whose address the rate limiter charges first): a refusal is decided
 * here by an exact method-and-path lookup, before the router tests its patterns (about 40 µs a request in a CPU profile
 * of the overload run). The route takes the admission from the request's state; any other spelling of the path (a
 * trailing slash) is admitted by its route as before. Placed after the rate limit, so a refused call is still charged
 * to its address, and after the metrics, which count it under the route's label.
 */
export function admitBeforeRouting(orchestrator: Orchestrator): Middleware {
  const admitted = admissionTools(orchestrator);
  return async (ctx, next) => {
    const early = earlyAdmissions.get(ctx.req);
    const tool = early || !admitted.size ? undefined : admitted.get(`${ctx.method} ${ctx.path}`);
    if (!early && !tool) return next();
    let release: () => void;
    if (early) release = early;
    else {
      try {
        release = orchestrator.admit(tool!.name);
      } catch (err) {
        if (!(err instanceof ToolError)) throw err;
        (ctx as Context & { _matchedRoute?: string })._matchedRoute = tool!.http.path;
        sendError(ctx, err.status, err.toBody());
        return;
      }
    }
    ctx.state[ADMITTED_STATE] = release;
    try {
      await next();
    } finally {
      release(); // the route's invoke released it already; this covers an answer given before it (idempotent)
    }
  };
}

export function buildToolRouter(orchestrator: Orchestrator): Router {
  const router = new Router();
  for (const tool of orchestrator.tools) {
    const method = tool.http.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    const names = pathParams(tool.http.path);
    router[method](koaPath(tool.http.path), async (ctx) => {
      let input: Record<string, unknown>;
      // Admitted for load before the body is read, so a refusal under overload answers at once (orchestrator.admit).
      let admitted: (() => void) | undefined;
      try {
        admitted = (ctx.state[ADMITTED_STATE] as (() => void) | undefined) ?? orchestrator.admit(tool.name);
        input = await collectInput(ctx, tool, names);
      } catch (err) {
        admitted?.();
        const e = err instanceof ToolError ? err : new ToolError('invalid_input');
        sendError(ctx, e.status, e.toBody());
        return;
      }
      const result = await orchestrator.invoke({
        tool: tool.name,
        input,
        credential: bearerOf(ctx),
        idempotencyKey: ctx.get('idempotency-key') || undefined,
        request: requestInfo(ctx, 'rest'),
        admitted,
      });
      if (tool.http.cache && answerCacheable(ctx, tool.http.cache, result.ok, result.ok ? result.output : undefined)) return;
      respond(ctx, result);
    });
  }
  return router;
}
