/**
 * Early refusals for load (issue #32, #33): before Koa and before routing, a call to a tool with admission control
 * (`tool.admission`: reserve) is answered 429 when the one admission rule (`Orchestrator.refuseForLoad`, the tool's
 * `admission.check`: src/domain/purchase/reserve-admission.ts) already refuses it, before its body is read. HTTP
 * plumbing: it knows no tool by name, decides nothing itself and takes nothing; every call that passes takes its place
 * in the orchestrator, once read and authenticated, by the same rule on every surface (REST, MCP, A2A).
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Context, Middleware } from 'koa';
import type { HttpMetrics } from './middleware.ts';
import type { Orchestrator } from '../orchestrator/invoke.ts';
import { ToolError } from '../kernel/errors.ts';
import type { AnyTool } from '../orchestrator/tool.ts';
import { BEARER, sendError } from './http.ts';
import { requestIdOf } from './request-log.ts';

/**
 * The tools with admission control (`tool.admission`: reserve) at a path without parameters (so the path is also its
 * Koa route), by `METHOD /path`.
 */
function admissionTools(orchestrator: Orchestrator): Map<string, AnyTool> {
  const tools = new Map<string, AnyTool>();
  for (const tool of orchestrator.tools) {
    if (!tool.admission || /\{\w+\}/.test(tool.http.path)) continue;
    tools.set(`${tool.http.method} ${tool.http.path}`, tool);
  }
  return tools;
}

export interface EarlyAdmissionDeps {
  orchestrator: Orchestrator;
  metrics: HttpMetrics;
  /** The security headers Koa's first middleware sets (`setSecurityHeaders`). */
  securityHeaders: (req: IncomingMessage, res: ServerResponse) => void;
  /** Charges a refused call's address, as the rate-limit middleware does after any answer given before a credential. */
  chargeAddress: (ip: string) => void;
}

/**
 * Refusals for load before Koa, for a call with a bearer credential at the exact path of a tool with admission: under
 * overload most answers are 429 refusals, and each one's CPU delays the admitted calls on the same event loop (at a
 * sale's opening, hundreds of refusals are read in the turns the first batch's database replies wait behind;
 * docs/performance.md). So a call the admission already refuses (`orchestrator.refuseForLoad`: the process is past its
 * bound with the calls holding a place and those being authenticated) is answered here, from Node's request handler,
 * with what Koa's middleware would have given it (the security headers, an `X-Request-Id`, `Cache-Control: no-store`, the JSON error body
 * with `Retry-After`, the metrics under the route's label, the address's rate-limit charge after the answer), without
 * Koa's context, middleware chain or response handling. Nothing is taken here: any other call goes on to Koa, reads its
 * body, and takes its place in the orchestrator once its caller is authenticated, so a client that sends the headers
 * and never the body holds no place (issue #32). Any other request (another path or spelling of it, a call without a
 * credential, whose address is charged before anything else) goes to Koa as before.
 */
export function admitBeforeKoa(deps: EarlyAdmissionDeps, next: RequestListener): RequestListener {
  const tools = admissionTools(deps.orchestrator);
  return (req, res) => {
    const url = req.url ?? '';
    const query = url.indexOf('?');
    const tool = tools.size ? tools.get(`${req.method} ${query < 0 ? url : url.slice(0, query)}`) : undefined;
    if (!tool || !BEARER.test(req.headers.authorization ?? '')) return next(req, res);
    const started = performance.now();
    try {
      deps.orchestrator.refuseForLoad(tool.name);
    } catch (err) {
      if (!(err instanceof ToolError)) return next(req, res); // Koa checks it again and answers whatever happens
      const body = err.toBody();
      const text = JSON.stringify(body);
      res.statusCode = err.status;
      deps.securityHeaders(req, res);
      const given = req.headers['x-request-id'];
      res.setHeader('X-Request-Id', requestIdOf(typeof given === 'string' ? given : undefined));
      res.setHeader('Cache-Control', 'no-store');
      if (body.retryAfter !== undefined) res.setHeader('Retry-After', String(body.retryAfter));
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Content-Length', Buffer.byteLength(text));
      res.end(text);
      // No parameters: the path is the route's label.
      deps.metrics.record(req.method ?? 'POST', tool.http.path, err.status, started);
      deps.chargeAddress(req.socket.remoteAddress ?? '');
      return;
    }
    return next(req, res);
  };
}

/**
 * Refusals for load before routing, for the tools that have admission control, also for calls not checked before Koa
 * (`admitBeforeKoa`: those without a credential, whose address the rate limiter charges first): a certain
 * refusal (`orchestrator.refuseForLoad`) is answered here after an exact method-and-path lookup, before the router
 * tests its patterns (about 40 µs a request in a CPU profile of the overload run). Nothing is taken: a call that passes
 * takes its place in the orchestrator once its body is read and its caller authenticated. Any other spelling of the
 * path (a trailing slash) is refused by the orchestrator as before. Placed after the rate limit, so a refused call is
 * still charged to its address, and after the metrics, which count it under the route's label.
 */
export function admitBeforeRouting(orchestrator: Orchestrator): Middleware {
  const admitted = admissionTools(orchestrator);
  return async (ctx, next) => {
    const tool = admitted.size ? admitted.get(`${ctx.method} ${ctx.path}`) : undefined;
    if (!tool) {
      await next();
      return;
    }
    try {
      orchestrator.refuseForLoad(tool.name);
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      (ctx as Context & { _matchedRoute?: string })._matchedRoute = tool.http.path;
      sendError(ctx, err.status, err.toBody());
      return;
    }
    await next();
  };
}
