/**
 * The PDF behind get_invoice's `downloadUrl`s: GET `/v1/invoices/{token}` renders the order's receipt, invoice or
 * credit note (src/domain/purchase/invoices.ts); the link is the credential, minted by a call the orchestrator
 * authorized, and works until it expires. Unknown or expired: 404. Each address has a document budget a minute (429).
 */
import Router from '@koa/router';
import type { Services } from '../domain/context.ts';
import { redeemDocumentLink } from '../domain/purchase/invoices.ts';
import { ToolError } from '../kernel/errors.ts';
import { sendError } from '../http/http.ts';
import { chargeDocument } from '../http/route-charges.ts';

/** The path get_invoice's links point at. */
export const INVOICE_DOWNLOAD_PATH = '/v1/invoices/:token';

export function buildInvoiceDownloadRouter(deps: { services: Services }): Router {
  const { services } = deps;
  const router = new Router();
  router.get(INVOICE_DOWNLOAD_PATH, async (ctx) => {
    if (!(await chargeDocument(ctx))) return; // each rendering costs CPU: the address's document budget (rate-limit.ts)
    const token = ctx.params.token ?? '';
    const found = /^tdoc_[a-z0-9]{20,80}$/.test(token)
      ? await redeemDocumentLink(services.db, token, services.clock.now())
      : undefined;
    if (!found) {
      sendError(ctx, 404, new ToolError('not_found', 'No such document, or its link has expired.').toBody());
      return;
    }
    ctx.set('Content-Disposition', `attachment; filename="${found.filename}"`);
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'application/pdf';
    ctx.body = found.pdf;
  });
  return router;
}
