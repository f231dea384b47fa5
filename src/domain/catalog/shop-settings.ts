/**
 * A shop's life after creation: its public settings (spec §5.3: name, description, `discoverable`, embed origins)
 * and its deletion. A deleted shop disappears from every shop-scoped read, from purchases and from discovery
 * (`deletedAt` is set; every lookup filters it) while its rows stay for the records; orders already completed stay
 * readable by their owners. Deletion is refused while money or places are in motion.
 */
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import type { ShopRow } from '../../storage/entities/catalog.ts';
import { sql } from '../../storage/database.ts';
import { requireShop } from './access.ts';
import { parseEmbedOrigins } from './embed-origins.ts';

type Ctx = Pick<ToolContext, 'em' | 'principal' | 'clock'>;

export interface ShopSettings {
  name?: string | undefined;
  description?: string | null | undefined;
  discoverable?: boolean | undefined;
  /** The spec's `embedOrigin` setting: up to three origins separated by spaces or commas; null clears it. */
  embedOrigin?: string | null | undefined;
}

/** Changes the given settings and leaves the others as they are. */
export async function updateShopSettings(
  { em, principal, clock }: Ctx,
  shopId: string,
  input: ShopSettings,
): Promise<ShopRow> {
  const shop = await requireShop(em, principal, shopId);
  const origins = input.embedOrigin !== undefined ? parseEmbedOrigins(input.embedOrigin) : undefined;
  if (input.name !== undefined) shop.name = input.name;
  if (input.description !== undefined) shop.description = input.description;
  if (input.discoverable !== undefined) shop.discoverable = input.discoverable;
  if (origins) shop.embedOrigins = origins;
  shop.updatedAt = clock.now();
  await em.flush();
  return shop;
}

/** Sets the embed origins alone (the console operation of spec §4.3). */
export async function setEmbedOrigins(ctx: Ctx, shopId: string, embedOrigin: string | null): Promise<ShopRow> {
  return updateShopSettings(ctx, shopId, { embedOrigin });
}

/**
 * Deletes a shop: refused with `shop_has_purchases_in_flight` (and the counts) while a reservation is held or
 * confirming or a payment is pending. The shop row is locked first so two deletions, or a deletion and a settings
 * change, do not interleave.
 */
export async function deleteShop({ em, principal, clock }: Ctx, shopId: string): Promise<ShopRow> {
  const shop = await requireShop(em, principal, shopId);
  await sql(em, 'select id from shops where id = ? for update', [shop.id]);
  const [row] = await sql<{ held: string; pending: string }>(
    em,
    `select (select count(*) from reservations where shop_id = ? and state in ('held', 'confirming')) as held,
            (select count(*) from payments where shop_id = ? and state = 'pending') as pending`,
    [shop.id, shop.id],
  );
  const heldReservations = Number(row?.held ?? 0);
  const pendingPayments = Number(row?.pending ?? 0);
  if (heldReservations > 0 || pendingPayments > 0) {
    throw new ToolError(
      'shop_has_purchases_in_flight',
      `The shop has ${heldReservations} held or confirming reservation(s) and ${pendingPayments} pending payment(s); delete it once they have finished.`,
      { heldReservations, pendingPayments },
    );
  }
  const now = clock.now();
  shop.deletedAt = now;
  shop.discoverable = false;
  shop.updatedAt = now;
  await em.flush();
  return shop;
}
