/**
 * HTTP routes of the payments area that are not tools: the sandbox provider's signed webhook endpoint
 * (it needs the raw body for the signature) and the sandbox's hosted card form.
 */
import Router from '@koa/router';
import type { Logger } from 'pino';
import { describeError, ToolError } from '../kernel/errors.ts';
import { applyProviderEvent } from '../domain/purchase/payment-events.ts';
import type { Services } from '../domain/context.ts';
import { sendError } from '../http/http.ts';
import { readRaw } from '../http/read-body.ts';
import { renderCardForm } from './sandbox-card-form.ts';
import { cardFormAncestors } from '../domain/buyers/embed-access.ts';
import { SANDBOX_EVENTS_PATH } from '../payments/sandbox-dispatcher.ts';
import { SIGNATURE_HEADER } from '../payments/sandbox-signature.ts';

const MAX_EVENT_BYTES = 64 * 1024;

export function buildPaymentsRouter(deps: { services: Services; log: Logger }): Router {
  const { services, log } = deps;
  const router = new Router();

  /**
   * 200 `{ received, outcome }` once applied or a duplicate; 400 `invalid_signature` / `stale_signature` /
   * `invalid_input`.
   */
  router.post(SANDBOX_EVENTS_PATH, async (ctx) => {
    try {
      const raw = await readRaw(ctx.req, MAX_EVENT_BYTES);
      const headers = { [SIGNATURE_HEADER]: ctx.get(SIGNATURE_HEADER) || undefined };
      const event = services.payments.sandbox.parseEvent(raw, headers, services.clock.now());
      const outcome = await applyProviderEvent({ ...services, log }, 'sandbox', event);
      ctx.status = 200;
      ctx.body = { received: true, outcome };
    } catch (err) {
      const e = err instanceof ToolError ? err : (services.db.mapDatabaseError(err) ?? new ToolError('internal_error'));
      if (e.code === 'internal_error') log.error({ err: describeError(err) }, 'provider event failed');
      else if (e.status === 400) log.warn({ code: e.code }, 'provider event refused');
      sendError(ctx, e.status, e.toBody());
    }
  });

  // Framed by our own pages and, through the consent view, by the setup's shop's embed origins.
  router.get('/sandbox/card-form', async (ctx) => {
    const setup = typeof ctx.query.setup === 'string' ? ctx.query.setup : '';
    renderCardForm(ctx, setup ? await cardFormAncestors(services.db, setup) : []);
  });
  return router;
}
