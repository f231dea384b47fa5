/**
 * The CSV download behind create_export's `downloadUrl`: GET `/v1/exports/{token}` redeems the single-use token
 * (src/domain/purchase/exports.ts) and streams the file as an attachment; the link itself is the credential, minted by
 * a call the orchestrator authorized. Unknown, used or expired: 404.
 */
import Router from '@koa/router';
import type { Logger } from 'pino';
import type { Services } from '../domain/context.ts';
import { redeemExport } from '../domain/purchase/exports.ts';
import { describeError, ToolError } from '../kernel/errors.ts';
import { csvStream } from '../kernel/csv.ts';
import { sendError } from '../http/http.ts';

/** The path create_export's links point at. */
export const EXPORT_DOWNLOAD_PATH = '/v1/exports/:token';

export function buildExportDownloadRouter(deps: { services: Services; log: Logger }): Router {
  const { services, log } = deps;
  const router = new Router();
  router.get(EXPORT_DOWNLOAD_PATH, async (ctx) => {
    const token = ctx.params.token ?? '';
    const found = /^tex_[a-z0-9]{20,80}$/.test(token)
      ? await redeemExport(services.db, token, services.clock.now())
      : undefined;
    if (!found) {
      sendError(ctx, 404, new ToolError('not_found', 'No such download, or it was used or has expired.').toBody());
      return;
    }
    const body = csvStream(found.header, found.rows);
    body.on('error', (err) => log.error({ err: describeError(err) }, 'export stream failed'));
    ctx.set('Content-Disposition', `attachment; filename="${found.filename}"`);
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/csv; charset=utf-8';
    ctx.body = body;
  });
  return router;
}
