/**
 * The reserve batch's statements (src/domain/purchase/reserve-batcher.ts), written so that a batch costs as few
 * round trips as it can: on one hot pool every round trip inside the batch is time the pool's row, or the next
 * batch, waits for. One statement locks the batch's quotes and reads what deciding them needs (tier, shop, event);
 * one statement writes the holds, marks the quotes used, stores the idempotency outcomes and takes the first pool's
 * places. Tiers, shops and events come back as entities of this transaction's EntityManager (`em.map`), as `em.find`
 * would give them; quotes as plain rows (nothing changes them through the ORM).
 */
import type { EntityDictionary, EntityName } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Event, Shop, Tier, type EventRow, type ShopRow, type TierRow } from './entities/catalog.ts';
import { Quote, Reservation, type QuoteRow, type ReservationRow } from './entities/purchase.ts';
import type { Outcome } from './idempotency-store.ts';
import { sql } from './database.ts';

/** The entity's [property, column] pairs, from MikroORM's metadata (one column per property here). */
function fieldsOf<T extends object>(em: EntityManager, entity: EntityName<T>): [string, string][] {
  const meta = em.getMetadata().get<T>(entity);
  return meta.props.map((p) => [p.name as string, p.fieldNames[0]!]);
}

/** A quote of the batch, locked, with what it was priced from (undefined when gone, or the shop deleted). */
export interface LockedQuote {
  quote: QuoteRow;
  tier: TierRow | undefined;
  shop: ShopRow | undefined;
  event: EventRow | undefined;
}

/**
 * Locks the quotes `ids` (FOR UPDATE, in id order, so batches of several processes never deadlock on them) and
 * reads each one's tier, live shop and event, in one statement. Quotes that do not exist are absent.
 */
export async function lockQuotesWithOffers(em: EntityManager, ids: readonly string[]): Promise<LockedQuote[]> {
  if (!ids.length) return [];
  const parts = [
    ['q', Quote],
    ['t', Tier],
    ['s', Shop],
    ['e', Event],
  ] as const;
  const fields = new Map<string, [string, string][]>(parts.map(([alias, entity]) => [alias, fieldsOf(em, entity as EntityName<object>)]));
  const select = parts.flatMap(([alias]) => fields.get(alias)!.map(([, column]) => `${alias}."${column}" as "${alias}.${column}"`));
  const rows = await sql<Record<string, unknown>>(
    em,
    `select ${select.join(', ')}
       from quotes q
       left join tiers t on t.id = q.tier_id
       left join shops s on s.id = q.shop_id and s.deleted_at is null
       left join events e on e.id = t.event_id
      where q.id = any(array(select jsonb_array_elements_text(?::jsonb)))
      order by q.id
        for update of q`,
    [JSON.stringify(ids)],
  );
  // A hot pool's batch is many quotes of one tier, shop and event: each distinct row is mapped once (mapping is the
  // costly part of this function: identity map, unit of work, type conversion), and its entity shared.
  const mapped = new Map<string, object>();
  const part = <T extends object>(row: Record<string, unknown>, alias: 'q' | 't' | 's' | 'e', entity: EntityName<T>): T | undefined => {
    const id = row[`${alias}.id`];
    if (id === null) return undefined;
    const seen = `${alias}:${String(id)}`;
    const known = mapped.get(seen);
    if (known) return known as T;
    const raw = Object.fromEntries(fields.get(alias)!.map(([, column]) => [column, row[`${alias}.${column}`]]));
    const made = em.map(entity, raw as EntityDictionary<T>);
    mapped.set(seen, made);
    return made;
  };
  // Quotes are read, not changed through the ORM (the write statement marks them used), so each is a plain row
  // with its properties: mapping it into the unit of work cost about 0.1 ms a quote, and the commit then had to
  // compare every one of them for changes.
  // The driver hands timestamps over as text (MikroORM's type parsers); the ORM's hydrator makes them Dates the same way.
  const dates = new Set(em.getMetadata().get(Quote).props.filter((p) => p.runtimeType === 'Date').map((p) => p.name as string));
  const quoteFields = fields.get('q')!;
  const quoteOf = (row: Record<string, unknown>): QuoteRow =>
    Object.fromEntries(
      quoteFields.map(([prop, column]) => {
        const value = row[`q.${column}`];
        return [prop, dates.has(prop) && (typeof value === 'string' || typeof value === 'number') ? new Date(value) : value];
      }),
    ) as QuoteRow;
  return rows.map((row) => ({
    quote: quoteOf(row),
    tier: part<TierRow>(row, 't', Tier),
    shop: part<ShopRow>(row, 's', Shop),
    event: part<EventRow>(row, 'e', Event),
  }));
}

/** What one batch writes: its holds, each from its quote, the outcomes to store and the places to take per pool. */
export interface BatchWrites {
  holds: readonly ReservationRow[];
  outcomes: readonly Outcome[];
  /** Places taken per pool, in pool id order. */
  takes: readonly { poolId: string; quantity: number }[];
}

/**
 * Writes a batch: inserts its holds, sets each hold's quote `reservation_id`, stores the outcomes (the keys were
 * claimed in this transaction) and takes the places of each pool, only where `available_count` still has them.
 * The first pool's update rides in the same statement; further pools (rare: one batch, several pools) follow one
 * statement each, in id order, so batches of several processes lock pools in one order. Returns the pools that
 * had too few places (the caller rolls the transaction back).
 */
export async function writeBatch(em: EntityManager, w: BatchWrites): Promise<string[]> {
  const columns = fieldsOf(em, Reservation);
  const holds = w.holds.map((h) => Object.fromEntries(columns.map(([prop, column]) => [column, (h as unknown as Record<string, unknown>)[prop] ?? null])));
  const used = w.holds.map((h) => ({ id: h.quoteId, reservation_id: h.id }));
  const outcomes = w.outcomes.map((o) => {
    // The reserve's answers hold no secret; a sealed outcome needs the sealer (IdempotencyStore.complete).
    if (o.response.sealed) throw new Error('writeBatch stores no sealed response.');
    return { scope: o.scope, key: o.key, status: o.response.status, response: o.response.body };
  });
  const [first, ...rest] = w.takes;
  const list = columns.map(([, column]) => `"${column}"`).join(', ');
  const [row] = await sql<{ taken: number }>(
    em,
    `with holds as (
       insert into reservations (${list}) select ${list} from jsonb_populate_recordset(null::reservations, ?::jsonb) returning 1
     ), used as (
       update quotes q set reservation_id = v.reservation_id
         from jsonb_to_recordset(?::jsonb) as v(id text, reservation_id text) where q.id = v.id returning 1
     ), done as (
       update idempotency_keys k set state = 'done', status = v.status, response = v.response
         from jsonb_to_recordset(?::jsonb) as v(scope text, key text, status int, response jsonb)
        where k.scope = v.scope and k.key = v.key returning 1
     ), taken as (
       update pools set available_count = available_count - ?::int where id = ? and available_count >= ?::int returning 1
     )
     select (select count(*) from taken)::int as taken`,
    [JSON.stringify(holds), JSON.stringify(used), JSON.stringify(outcomes), first?.quantity ?? 0, first?.poolId ?? null, first?.quantity ?? 0],
  );
  const short = first && row?.taken !== 1 ? [first.poolId] : [];
  for (const take of rest) {
    const rows = await sql(em, 'update pools set available_count = available_count - ? where id = ? and available_count >= ? returning id', [take.quantity, take.poolId, take.quantity]);
    if (!rows.length) short.push(take.poolId);
  }
  return short;
}
