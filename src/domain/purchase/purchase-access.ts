/**
 * Who may buy, and who may see a purchase. `authorizePurchase` is the ONE place spending rules plug in
 * (the buyer-authority issue adds agent permissions there); ownership of quotes, reservations, orders
 * and payments is decided by `mayAccessPurchase`. Anything not accessible answers 404.
 */
import { authorizeAgentPurchase } from '../buyers/agent-purchases.ts';
import type { ShopRow } from '../../storage/entities/catalog.ts';
import { holdsPermissionAt, mayAccessShop, shopNotFound } from '../catalog/access.ts';
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import type { Principal } from '../../kernel/principal.ts';

/** The owner fields stored on every purchase object. */
export interface Ownership {
  ownerKey: string;
  buyerId: string | null;
}

/** Owner key of the caller: the organization for API keys, the buyer for buyer sessions, the agent for agents. */
export function ownershipOf(principal: Principal): Ownership {
  switch (principal.kind) {
    case 'api_key':
    case 'console_user':
      return { ownerKey: `org:${principal.organizationId}`, buyerId: null };
    case 'buyer':
      return { ownerKey: `buyer:${principal.buyerId}`, buyerId: principal.buyerId };
    case 'agent':
      return { ownerKey: `agent:${principal.agentId}`, buyerId: principal.buyerId };
    case 'staff':
      return { ownerKey: `staff:${principal.userId}`, buyerId: null };
    case 'anonymous':
      return { ownerKey: 'anonymous', buyerId: null };
  }
}

/** A purchase object as far as access is concerned. */
export interface Owned {
  organizationId: string;
  shopId: string;
  ownerKey: string;
  buyerId?: string | null | undefined;
}

/** The shop and owner fields a purchase object hands on to the next one (quote → reservation → payment, order). */
export function ownershipFrom(row: Owned & { shopId: string }): { shopId: string; organizationId: string } & Ownership {
  return {
    shopId: row.shopId,
    organizationId: row.organizationId,
    ownerKey: row.ownerKey,
    buyerId: row.buyerId ?? null,
  };
}

/**
 * Merchant principals see every purchase in their organization's shops; a buyer sees what it or its
 * agents bought, and a session for one shop (every bounded one) only what was bought there, so a session one
 * organization mints never reaches the same buyer's purchases at another's shop; an agent sees what it bought itself.
 */
export function mayAccessPurchase(principal: Principal, row: Owned): boolean {
  switch (principal.kind) {
    case 'api_key':
    case 'console_user':
      return row.organizationId === principal.organizationId;
    case 'buyer':
      return (
        row.buyerId != null &&
        row.buyerId === principal.buyerId &&
        (principal.merchantId === null || principal.merchantId === row.shopId)
      );
    case 'agent':
      return row.ownerKey === `agent:${principal.agentId}`;
    case 'staff':
    case 'anonymous':
      return false;
  }
}

/** Throws `not_found` (never 403) unless the principal may see the object. */
export function requireAccess<T extends Owned>(
  principal: Principal,
  row: T | null | undefined,
  what: string,
  id: string,
): T {
  if (!row || !mayAccessPurchase(principal, row)) throw new ToolError('not_found', `No ${what} ${id}.`, { id });
  return row;
}

/** Which step of the purchase is being authorized: the agent rules may treat them differently. */
export type PurchaseStage = 'quote' | 'reserve' | 'pay';

export interface PurchaseIntent {
  shop: ShopRow;
  amountMinor: number;
  currency: string;
  stage: PurchaseStage;
  /** At `pay`: the reservation being paid (an agent's spend is recorded against it) and the method charged. */
  reservationId?: string;
  paymentMethod?: string;
  /**
   * What authorizes the spend: `permission` (default) is the caller's own authority (an agent's permission from its
   * buyer); `mandate` is a verified network-signed mandate (purchase_initiate), which replaces the agent's permission:
   * its merchant scope, limit, expiry and single use are enforced by src/domain/purchase/mandate-purchase.ts.
   */
  authority?: 'permission' | 'mandate';
}

/**
 * Decides whether the caller may buy in this shop for this amount: merchants only in their own organization's shops
 * (404 otherwise), buyers in the shop their session is for, agents only inside an active permission their buyer granted
 * from the hold onwards (src/domain/buyers/agent-purchases.ts: shop scope, caps, rolling allowance, expiry, revocation;
 * at `pay` the permission is locked and the spend recorded in `ctx.em`, which must be the transaction that records the
 * payment). With `authority: 'mandate'` an agent's permission is not consulted (the mandate is the spend authority);
 * merchants still act only in their own shops.
 */
export async function authorizePurchase(
  ctx: Pick<ToolContext, 'principal' | 'em' | 'clock'>,
  intent: PurchaseIntent,
): Promise<void> {
  const { principal } = ctx;
  if (principal.kind === 'agent') {
    // Under a network mandate the agent spends the network's credential, not its buyer's card: no permission applies.
    // A quote holds nothing and starts both paths (permission or mandate), so the permission is enforced
    // from the hold onwards (reserve, pay), where the mandate path enforces the mandate instead.
    // An OAuth access token acts inside its one permission: it never spends under a mandate.
    if (intent.authority === 'mandate' && principal.permissionId)
      throw new ToolError('forbidden', 'An OAuth access token buys only inside the permission it was granted.');
    if (intent.authority === 'mandate' || intent.stage === 'quote') return;
    await authorizeAgentPurchase(
      ctx.em,
      { agentId: principal.agentId, permissionId: principal.permissionId, ...intent },
      ctx.clock.now(),
    );
    return;
  }
  if (
    principal.kind === 'anonymous' ||
    !(mayAccessShop(principal, intent.shop) || (await holdsPermissionAt(ctx.em, principal, intent.shop.id)))
  ) {
    throw shopNotFound(intent.shop.id);
  }
}
