/**
 * The files behind get_ticket_downloads' links and the order e-mail's wallet links: GET `/v1/ticket-files/{token}`
 * opens the sealed token (src/domain/purchase/ticket-documents.ts) and sends the tickets PDF or a ticket's Apple
 * Wallet pass; the link is the credential, minted for a caller the orchestrator authorized. Forged, expired, or a
 * ticket no longer valid: 404. Each address has a document budget a minute (429 `rate_limited`, Retry-After).
 */
import Router from '@koa/router';
import type { Logger } from 'pino';
import type { Services } from '../domain/context.ts';
import { redeemTicketFile, TICKET_FILE_PATH } from '../domain/purchase/ticket-documents.ts';
import { describeError, ToolError } from '../kernel/errors.ts';
import { sendError } from '../http/http.ts';
import { chargeDocument } from '../http/route-charges.ts';

const TOKEN = /^v1\.[A-Za-z0-9_-]{10,40}\.[A-Za-z0-9_-]{20,1000}$/;

export function buildTicketFileRouter(deps: { services: Services; log: Logger }): Router {
  const { services, log } = deps;
  const router = new Router();
  router.get(`${TICKET_FILE_PATH}:token`, async (ctx) => {
    if (!(await chargeDocument(ctx))) return; // each rendering costs CPU: the address's document budget (rate-limit.ts)
    const token = ctx.params.token ?? '';
    let file;
    try {
      file = TOKEN.test(token) ? await redeemTicketFile(services, token, services.clock.now()) : undefined;
    } catch (err) {
      log.error({ err: describeError(err) }, 'ticket file not rendered');
      sendError(ctx, 503, new ToolError('unavailable', 'The file could not be made; retry in a moment.').toBody());
      return;
    }
    if (!file) {
      sendError(ctx, 404, new ToolError('not_found', 'No such download, or it has expired.').toBody());
      return;
    }
    ctx.set('Content-Disposition', `attachment; filename="${file.filename}"`);
    ctx.set('Cache-Control', 'no-store');
    ctx.type = file.contentType;
    ctx.body = file.body;
  });
  return router;
}
