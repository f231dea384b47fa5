/**
 * Choosing the shop after signing in (the OAuth authorize page signs the buyer in first, then asks for the shop): a
 * FULL session is exchanged for a full session of the same buyer for a shop it may see as a buyer without a shop
 * (a discoverable shop, or one it holds or held a permission at: `requireShop`), or its current shop, ending when the
 * first one ends. It widens nothing: a full session already sees all the buyer's agents, cards and permissions; the
 * shop only decides where cards are saved and permissions granted. Bounded sessions stay bound to the shop that
 * minted them (refused by the tool's `fullBuyer`, and here).
 */
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { Buyer } from '../../storage/entities/buyer.ts';
import { Shop } from '../../storage/entities/catalog.ts';
import { requireShop, shopNotFound } from '../catalog/access.ts';
import { buyerOf, issueBuyerSession, sessionLang, type IssuedSession } from './sessions.ts';

export async function scopeSession(ctx: ToolContext, merchantId: string): Promise<IssuedSession> {
  const principal = buyerOf(ctx);
  if (principal.mode !== 'full')
    throw new ToolError('forbidden', 'A bounded buyer session stays bound to its shop.', {
      sessionMode: principal.mode,
    });
  const now = ctx.clock.now();
  const left = principal.expiresAt === undefined ? 0 : principal.expiresAt - Math.floor(now.getTime() / 1000);
  if (left <= 0) throw new ToolError('unauthenticated', 'The session token is invalid or expired.');
  const shop =
    principal.merchantId === merchantId
      ? await ctx.em.findOne(Shop, { id: merchantId, deletedAt: null })
      : await requireShop(ctx.em, { ...principal, merchantId: null }, merchantId);
  if (!shop) throw shopNotFound(merchantId);
  const buyer = await ctx.em.findOne(Buyer, { id: principal.buyerId });
  if (!buyer) throw new ToolError('unauthenticated', 'The buyer of this session no longer exists.');
  return issueBuyerSession(ctx.services.identity, {
    buyerId: buyer.id,
    mode: 'full',
    merchantId: shop.id,
    lang: sessionLang(principal, buyer),
    now,
    ttlSeconds: left,
  });
}
