/**
 * What a quote is priced from, read in one statement (src/domain/purchase/quotes.ts): the tier, its live shop, its
 * event and its pool's available places, as plain rows (src/storage/plain-rows.ts). A quote holds nothing, so nothing
 * is locked; the reserve checks everything again under its own locks. Outside a transaction the reads are grouped
 * (`tierOfferReads`): the quotes arriving while one read runs are read together by the next, in one statement.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { CallGroups } from '../kernel/call-groups.ts';
import { Event, Shop, Tier, type EventRow, type ShopRow, type TierRow } from './entities/catalog.ts';
import { boundSql, type Database } from './database.ts';
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

type Row = Record<string, unknown>;

/** A tier's offer: the tier, its shop unless deleted, its event, and its pool's available places (0 when gone). */
export interface TierOffer {
  tier: TierRow;
  shop: ShopRow | null;
  event: EventRow | null;
  available: number;
}

/** Reads a tier's offer in one statement; undefined when there is no such tier. */
export async function readTierOffer(em: EntityManager, tierId: string): Promise<TierOffer | undefined> {
  const row = (await readOfferRows(em, [tierId])).get(tierId);
  return row && offerOf(em, row);
}

/** The result rows of the offers of `tierIds`, read in one statement, by tier id (absent: no such tier). */
async function readOfferRows(em: EntityManager, tierIds: readonly string[]): Promise<Map<string, Row>> {
  const rows = await boundSql<Row>(
    em,
    `select ${shapesOf(em).select}, coalesce(p.available_count, 0) as "available"
       from tiers t
       left join shops s on s.id = t.shop_id and s.deleted_at is null
       left join events e on e.id = t.event_id
       left join pools p on p.id = t.pool_id
      where t.id = any($1::text[])`,
    [tierIds],
  );
  return new Map(rows.map((row) => [row['t.id'] as string, row]));
}

/** A tier's offer, as new objects, from its result row. */
function offerOf(em: EntityManager, row: Row): TierOffer {
  const { tierOf, shopOf, eventOf } = shapesOf(em);
  return {
    tier: tierOf(row),
    shop: row['s.id'] == null ? null : shopOf(row),
    event: row['e.id'] == null ? null : eventOf(row),
    available: Number(row.available),
  };
}

/**
 * Tier offers read in groups, outside any transaction: the reads arriving while one runs are read together by the
 * next, in one statement (a flash sale's quotes: the offer read was one of a quote's two statements). Each read is
 * sent after its call arrived, so it sees what a read of its own would. Each call gets tier, shop and event objects
 * of its own (their JSON values, read only, are shared). A group whose statement fails reads its calls one by one, so
 * each call gets its own outcome.
 */
export class TierOfferReads extends CallGroups<{ tierId: string }, TierOffer | undefined> {
  private readonly db: Database;

  constructor(db: Database) {
    super(64, 1);
    this.db = db;
  }

  /** The offer of `tierId` (undefined: no such tier), read with the calls arriving meanwhile. */
  read(tierId: string): Promise<TierOffer | undefined> {
    return this.enqueue({ tierId });
  }

  protected async run(
    group: { tierId: string; resolve: (r: TierOffer | undefined) => void; reject: (err: unknown) => void }[],
  ): Promise<void> {
    if (group.length === 1) return this.eachAlone(group, (m) => readTierOffer(this.db.fork(), m.tierId));
    const em = this.db.fork();
    let rows: Map<string, Row>;
    try {
      rows = await readOfferRows(em, [...new Set(group.map((m) => m.tierId))]);
    } catch {
      // One call's failure is its own, not the group's.
      return this.eachAlone(group, (m) => readTierOffer(this.db.fork(), m.tierId));
    }
    for (const m of group) {
      const row = rows.get(m.tierId);
      m.resolve(row && offerOf(em, row));
    }
  }
}

const reads = new WeakMap<Database, TierOfferReads>();

/** The process's grouped tier-offer reads on `db`. */
export function tierOfferReads(db: Database): TierOfferReads {
  let r = reads.get(db);
  if (!r) reads.set(db, (r = new TierOfferReads(db)));
  return r;
}
