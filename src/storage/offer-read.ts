/**
 * What a quote is priced from, read in one statement (src/domain/purchase/quotes.ts): the tier, its live shop, its
 * event and its pool's available places, as plain rows (src/storage/plain-rows.ts). A quote holds nothing, so nothing
 * is locked; the reserve checks everything again under its own locks.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Event, Shop, Tier, type EventRow, type ShopRow, type TierRow } from './entities/catalog.ts';
import { boundSql } from './database.ts';
import { fieldsOf, plainRows, selectList, type Reader } from './plain-rows.ts';

interface Shapes {
  select: string;
  tierOf: Reader<TierRow>;
  shopOf: Reader<ShopRow>;
  eventOf: Reader<EventRow>;
}

const shapesByOrm = new WeakMap<object, Shapes>();

function shapesOf(em: EntityManager): Shapes {
  const metadata = em.getMetadata();
  let shapes = shapesByOrm.get(metadata);
  if (shapes) return shapes;
  const tier = fieldsOf(em, Tier);
  const shop = fieldsOf(em, Shop);
  const event = fieldsOf(em, Event);
  shapes = {
    select: [selectList(tier, 't'), selectList(shop, 's'), selectList(event, 'e')].join(', '),
    tierOf: plainRows(tier, 't'),
    shopOf: plainRows(shop, 's'),
    eventOf: plainRows(event, 'e'),
  };
  shapesByOrm.set(metadata, shapes);
  return shapes;
}

/** A tier's offer: the tier, its shop unless deleted, its event, and its pool's available places (0 when gone). */
export interface TierOffer {
  tier: TierRow;
  shop: ShopRow | null;
  event: EventRow | null;
  available: number;
}

/** Reads a tier's offer in one statement; undefined when there is no such tier. */
export async function readTierOffer(em: EntityManager, tierId: string): Promise<TierOffer | undefined> {
  const { select, tierOf, shopOf, eventOf } = shapesOf(em);
  const [row] = await boundSql<Record<string, unknown>>(
    em,
    `select ${select}, coalesce(p.available_count, 0) as "available"
       from tiers t
       left join shops s on s.id = t.shop_id and s.deleted_at is null
       left join events e on e.id = t.event_id
       left join pools p on p.id = t.pool_id
      where t.id = $1`,
    [tierId],
  );
  if (!row) return undefined;
  return {
    tier: tierOf(row),
    shop: row['s.id'] == null ? null : shopOf(row),
    event: row['e.id'] == null ? null : eventOf(row),
    available: Number(row.available),
  };
}
