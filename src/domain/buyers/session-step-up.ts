/**
 * Stepping a bounded session up to a full one in the consent view (spec §5.5): the merchant-minted bearer alone never
 * creates or widens authority, but the buyer may prove the e-mail address by the emailed 6-digit code typed in this
 * service's own screen (purpose `verify_session`; refused to partner origins like every code route). The answer is a
 * full session for the same buyer and shop, which the view keeps in memory and never hands to the partner page;
 * every operation that creates or widens authority still asks for its own code.
 */
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { Buyer } from '../../storage/entities/buyer.ts';
import { buyerOf, issueBuyerSession, sessionLang, type IssuedSession } from './sessions.ts';
import { spendConsent, STEP_UP_PURPOSE, verifyCode, type CodeProof } from './verification.ts';

export async function stepUpSession(ctx: ToolContext, proof: CodeProof): Promise<IssuedSession> {
  const principal = buyerOf(ctx);
  if (principal.mode === 'full')
    throw new ToolError('invalid_input', 'This session is already a full session.', { sessionMode: 'full' });
  const consent = await verifyCode(ctx, STEP_UP_PURPOSE, proof);
  const now = ctx.clock.now();
  const buyer = await ctx.services.db.transaction(async (em) => {
    await spendConsent(em, consent, now);
    const row = await em.findOne(Buyer, { id: principal.buyerId });
    if (!row) throw new ToolError('unauthenticated', 'The buyer of this session no longer exists.');
    return row;
  });
  return issueBuyerSession(ctx.services.identity, {
    buyerId: principal.buyerId,
    mode: 'full',
    merchantId: principal.merchantId,
    lang: sessionLang(principal, buyer),
    now,
  });
}
