/** Merchant-minted buyer sessions: who may mint one, and why it is always bounded. */
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { requireShop } from '../catalog/access.ts';
import { requireAttestingKey } from './attestation.ts';
import { findOrCreateBuyer, issueBuyerSession, type IssuedSession } from './sessions.ts';

/**
 * A merchant mints a BOUNDED session for a buyer its own authentication verified, at a shop of its organization.
 * Plain mints need merchant:write; `attested` mints need an attesting key of an enabled organization instead.
 */
export async function mintBoundedSession(
  ctx: Pick<ToolContext, 'em' | 'principal' | 'clock' | 'services'>,
  input: { merchantId: string; email: string; merchantAttested?: boolean | undefined; lang?: string | undefined },
): Promise<IssuedSession> {
  const { em, principal, clock } = ctx;
  if (principal.kind !== 'api_key') throw new ToolError('forbidden');
  const shop = await requireShop(em, principal, input.merchantId);
  if (input.merchantAttested) await requireAttestingKey(em, principal);
  else if (!principal.scopes.includes('merchant:write')) {
    throw new ToolError('insufficient_scope', 'This API key lacks the scope merchant:write.', {
      required: ['merchant:write'],
      missing: ['merchant:write'],
    });
  }
  const now = clock.now();
  const buyer = await findOrCreateBuyer(em, input.email, now);
  return issueBuyerSession(ctx.services.identity, {
    buyerId: buyer.id,
    mode: 'bounded',
    merchantId: shop.id,
    attested: input.merchantAttested === true,
    lang: input.lang ?? null,
    now,
  });
}
