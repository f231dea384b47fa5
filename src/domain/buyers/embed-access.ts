/**
 * What a shop's embed origins govern (spec §5.5, §5.7): which partner pages may frame the consent view
 * (`frame-ancestors`), and which browser origins may read the buyer API with a bearer (CORS, never cookies).
 *
 * - The consent view of a shop may be framed by that shop's embed origins only (none: by nobody).
 * - A CORS preflight carries no bearer, so it cannot name a shop: it is allowed for an origin that is an embed
 *   origin of SOME live shop. The actual request is then answered with `Access-Control-Allow-Origin` only when its
 *   bearer is a buyer session whose shop lists that origin; otherwise the browser keeps the answer from the page.
 * - Sign-in and code routes still refuse every partner origin (`origin-guard.ts`).
 */
import type { Database } from '../../storage/database.ts';
import type { Principal } from '../../kernel/principal.ts';

/** A live shop's embed origins, or null when there is no such shop. */
export async function shopEmbedOrigins(db: Database, shopId: string): Promise<string[] | null> {
  const rows = await db.execute<{ embed_origins: string[] }>(
    'select embed_origins from shops where id = ? and deleted_at is null',
    [shopId],
  );
  return rows[0] ? rows[0].embed_origins : null;
}

/** The shop a consent view is opened for: its name and embed origins, or null when there is no such live shop. */
export async function consentViewShop(
  db: Database,
  shopId: string,
): Promise<{ name: string; embedOrigins: string[] } | null> {
  const rows = await db.execute<{ name: string; embed_origins: string[] }>(
    'select name, embed_origins from shops where id = ? and deleted_at is null',
    [shopId],
  );
  return rows[0] ? { name: rows[0].name, embedOrigins: rows[0].embed_origins } : null;
}

/** Whether `origin` is an embed origin of some live shop: the test a bearer-less CORS preflight can make. */
export async function isAnyShopsEmbedOrigin(db: Database, origin: string): Promise<boolean> {
  const rows = await db.execute(
    'select 1 from shops where embed_origins @> array[?]::text[] and deleted_at is null limit 1',
    [origin],
  );
  return rows.length > 0;
}

/**
 * Whether the caller (the request's principal) may read the buyer API from `origin`: a buyer session of a shop listing
 * it.
 */
export async function mayReadBuyerApiFrom(db: Database, principal: Principal, origin: string): Promise<boolean> {
  if (principal.kind !== 'buyer' || !principal.merchantId) return false;
  return ((await shopEmbedOrigins(db, principal.merchantId)) ?? []).includes(origin);
}

/**
 * The pages that may frame the provider's card form of a card setup: this service's own pages (`'self'`) and, since
 * the consent view that frames the form is itself framed by a partner page, the embed origins of the setup's shop.
 */
export async function cardFormAncestors(db: Database, setupId: string): Promise<string[]> {
  const rows = await db.execute<{ embed_origins: string[] }>(
    'select s.embed_origins from card_setups c join shops s on s.id = c.shop_id where c.id = ? and s.deleted_at is null',
    [setupId],
  );
  return rows[0]?.embed_origins ?? [];
}
