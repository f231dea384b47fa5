/** Koa routes generated from the tool registry: each translates HTTP to an orchestrator call and back. */
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Orchestrator, InvokeResult } from '../orchestrator/invoke.ts';
import { ToolError } from '../kernel/errors.ts';
import type { AnyTool } from '../orchestrator/tool.ts';
import { pathParams } from './openapi.ts';
import { parseJsonObject, readRaw } from '../http/read-body.ts';
import { requestInfo, bearerOf, sendError } from '../http/http.ts';
import { answerCacheable } from '../http/conditional.ts';
import { PRINCIPAL_KIND_STATE } from '../http/request-log.ts';
import { applyPageSession, presentedPageSession } from '../http/page-session.ts';

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
      if (name in body)
        throw new ToolError('unknown_field', `Unknown field: ${name} (it belongs in the path).`, {
          field: name,
          fields: [name],
        });
    }
    input = { ...body };
  }
  for (const name of names) input[name] = (ctx.params as Record<string, string | undefined>)[name];
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

/** `publicUrl`: the service's base URL (its origin is the pages' own, beside the request's). */
export function buildToolRouter(orchestrator: Orchestrator, publicUrl: () => string = () => ''): Router {
  const router = new Router();
  for (const tool of orchestrator.tools) {
    const method = tool.http.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    const names = pathParams(tool.http.path);
    router[method](koaPath(tool.http.path), async (ctx) => {
      let input: Record<string, unknown>;
      let page: ReturnType<typeof presentedPageSession>;
      // Refused for load before the body is read when that is certain (src/http/early-admission.ts); a call
      // takes its place for load in the orchestrator, once its body is read and its caller authenticated.
      try {
        input = await collectInput(ctx, tool, names);
        page = presentedPageSession(ctx, publicUrl());
      } catch (err) {
        const e = err instanceof ToolError ? err : new ToolError('invalid_input');
        sendError(ctx, e.status, e.toBody());
        return;
      }
      // A bearer wins over a page session; the page's cookie counts only with its header (src/http/page-session.ts).
      const bearer = bearerOf(ctx);
      const fromPage = !bearer && page?.token ? page.kind : undefined;
      const invoked = await orchestrator.invoke({
        tool: tool.name,
        input,
        credential: bearer ?? page?.token,
        pageSession: fromPage,
        idempotencyKey: ctx.get('idempotency-key') || undefined,
        request: requestInfo(ctx, 'rest'),
      });
      const result = await applyPageSession(ctx, publicUrl(), orchestrator.pageSessions, tool, page, invoked);
      if (result.ok) ctx.state[PRINCIPAL_KIND_STATE] = result.principal.kind; // for the request log
      if (tool.http.cache && answerCacheable(ctx, tool.http.cache, result.ok, result.ok ? result.output : undefined))
        return;
      respond(ctx, result);
    });
  }
  return router;
}
