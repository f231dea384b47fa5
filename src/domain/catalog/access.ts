/**
 * Object-level access, decided here once: a merchant principal sees only its organization's shops; a buyer session
 * for a shop sees that shop; an agent, or a full buyer session for no shop, sees discoverable shops and the shops it
 * holds (or held) a permission at; anything else answers 404 (never 403), so existence does not leak.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Shop, type ShopRow } from '../../storage/entities/catalog.ts';
import { Permission } from '../../storage/entities/buyer-authority.ts';
import { ToolError } from '../../kernel/errors.ts';
import type { Principal } from '../../kernel/principal.ts';

/** The 404 for a shop the caller may not see, the same as for a missing one. */
export function shopNotFound(shopId: string): ToolError {
  return new ToolError('not_found', `No shop ${shopId}.`, { merchantId: shopId });
}

/** Loads a live shop the principal may act on, or throws `not_found`. */
export async function requireShop(em: EntityManager, principal: Principal, shopId: string): Promise<ShopRow> {
  const shop = await em.findOne(Shop, { id: shopId, deletedAt: null });
  if (!shop || !(mayAccessShop(principal, shop) || (await holdsPermissionAt(em, principal, shop.id))))
    throw shopNotFound(shopId);
  return shop;
}

/** The ownership rule for each principal kind, without a database read (see `holdsPermissionAt` for the rest). */
export function mayAccessShop(principal: Principal, shop: ShopRow): boolean {
  switch (principal.kind) {
    case 'api_key':
    case 'console_user':
      return shop.organizationId === principal.organizationId;
    case 'buyer':
      return principal.merchantId === null ? shop.discoverable : principal.merchantId === shop.id;
    case 'agent':
      return shop.discoverable;
    case 'staff':
      return true;
    case 'anonymous':
      return shop.discoverable;
  }
}

/** Whether an agent, or a buyer session for no shop, holds or held a permission at the shop (which links it there). */
export async function holdsPermissionAt(em: EntityManager, principal: Principal, shopId: string): Promise<boolean> {
  if (principal.kind === 'agent') return (await em.count(Permission, { agentId: principal.agentId, shopId })) > 0;
  if (principal.kind === 'buyer' && principal.merchantId === null)
    return (await em.count(Permission, { buyerId: principal.buyerId, shopId })) > 0;
  return false;
}
