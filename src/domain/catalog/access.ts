/**
 * Object-level access, decided here once: a merchant principal sees only its organization's shops;
 * anything else answers 404 (never 403), so existence does not leak.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Shop, type ShopRow } from '../../storage/entities/catalog.ts';
import { ToolError } from '../../kernel/errors.ts';
import type { Principal } from '../../kernel/principal.ts';

/** Loads a live shop the principal may act on, or throws `not_found`. */
export async function requireShop(em: EntityManager, principal: Principal, shopId: string): Promise<ShopRow> {
  const shop = await em.findOne(Shop, { id: shopId, deletedAt: null });
  if (!shop || !mayAccessShop(principal, shop)) throw new ToolError('not_found', `No shop ${shopId}.`, { merchantId: shopId });
  return shop;
}

/** The ownership rule for each principal kind. */
export function mayAccessShop(principal: Principal, shop: ShopRow): boolean {
  switch (principal.kind) {
    case 'api_key':
    case 'console_user':
      return shop.organizationId === principal.organizationId;
    case 'buyer':
      return principal.merchantId === null || principal.merchantId === shop.id;
    case 'agent':
      return true;
    case 'staff':
      return true;
    case 'anonymous':
      return shop.discoverable;
  }
}
