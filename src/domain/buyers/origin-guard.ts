/** Sign-in and verification happen only on the service's own pages: a browser call from a partner origin is refused. */
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';

/**
 * Throws 403 `partner_origin_refused` when the request carries an `Origin` that is not the service's own
 * (its public URL's origin). Calls without an Origin (servers, agents, the CLI) are not browser calls and pass.
 */
export function refusePartnerOrigin(ctx: Pick<ToolContext, 'request' | 'services'>): void {
  const origin = ctx.request.origin;
  if (origin === undefined) return;
  let own: string;
  try {
    own = new URL(ctx.services.publicUrl()).origin;
  } catch {
    own = '';
  }
  if (origin !== own) throw new ToolError('partner_origin_refused', undefined, { origin });
}
