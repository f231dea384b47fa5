/**
 * The reserve batch's statements (src/domain/purchase/reserve-batcher.ts), written so that a batch costs as few
 * round trips as it can: on one hot pool every round trip inside the batch is time the pool's row, or the next
 * batch, waits for. One statement locks the batch's quotes and reads what deciding them needs (tier, shop, event);
 * one statement writes the holds, marks the quotes used, takes the pool's places and inserts every caller's idempotency
 * key with its outcome (each key is written once, with the batch; `settleKeys` in src/storage/idempotency-store.ts).
 * Quotes, tiers, shops and events come back as plain rows with their entities' properties (nothing in the batch changes
 * them through the ORM), so the unit of work has nothing to track or compare at the commit.
 */
import type { EntityName } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Event, Shop, Tier, type EventRow, type ShopRow, type TierRow } from './entities/catalog.ts';
import { Quote, Reservation, type QuoteRow, type ReservationRow } from './entities/purchase.ts';
import { IDEMPOTENCY_TTL_MS, IN_FLIGHT_STALE_MS, type KeyWrite } from './idempotency-store.ts';
import { boundSql, sql } from './database.ts';

/** One property of an entity, from MikroORM's metadata (one column per property here). */
interface Field {
  prop: string;
  column: string;
  /** A Date property (the driver hands timestamps over as text: MikroORM's type parsers). */
  date: boolean;
}

/** Reads one entity's plain object from a result row. */
type Reader<T> = (row: Record<string, unknown>) => T;

/**
 * Turns one entity's columns of a result row (`alias.column`) into a plain object with the entity's properties, as
 * MikroORM's hydrator would: Date properties are made Dates; arrays, numbers, booleans and strings come from the
 * driver as they are.
 */
function plainRows<T extends object>(fields: readonly Field[], alias: string): Reader<T> {
  const props = fields.map((f) => ({ ...f, from: `${alias}.${f.column}` }));
  return (row) => {
    const out: Record<string, unknown> = {};
    for (const p of props) {
      const value = row[p.from];
      out[p.prop] = p.date && (typeof value === 'string' || typeof value === 'number') ? new Date(value) : value;
    }
    return out as T;
  };
}

/** What the batch's statements are made of, derived from the entities' metadata once per ORM (it does not change). */
interface Shapes {
  /** The quote lock's select list (`alias."column" as "alias.column"`), and a reader per entity. */
  lockSelect: string;
  quoteOf: Reader<QuoteRow>;
  tierOf: Reader<TierRow>;
  shopOf: Reader<ShopRow>;
  eventOf: Reader<EventRow>;
  /** A hold's properties and columns, and the hold insert's column list. */
  holdFields: readonly Field[];
  holdColumns: string;
}

const shapesByOrm = new WeakMap<object, Shapes>();

function shapesOf(em: EntityManager): Shapes {
  const metadata = em.getMetadata();
  let shapes = shapesByOrm.get(metadata);
  if (shapes) return shapes;
  const fieldsOf = <T extends object>(entity: EntityName<T>): Field[] =>
    metadata
      .get<T>(entity)
      .props.map((p) => ({ prop: p.name as string, column: p.fieldNames[0]!, date: p.runtimeType === 'Date' }));
  const parts = [
    ['q', fieldsOf(Quote)],
    ['t', fieldsOf(Tier)],
    ['s', fieldsOf(Shop)],
    ['e', fieldsOf(Event)],
  ] as const;
  const holdFields = fieldsOf(Reservation);
  shapes = {
    lockSelect: parts
      .flatMap(([alias, fields]) => fields.map(({ column }) => `${alias}."${column}" as "${alias}.${column}"`))
      .join(', '),
    quoteOf: plainRows<QuoteRow>(parts[0][1], 'q'),
    tierOf: plainRows<TierRow>(parts[1][1], 't'),
    shopOf: plainRows<ShopRow>(parts[2][1], 's'),
    eventOf: plainRows<EventRow>(parts[3][1], 'e'),
    holdFields,
    holdColumns: holdFields.map(({ column }) => `"${column}"`).join(', '),
  };
  shapesByOrm.set(metadata, shapes);
  return shapes;
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
  const { lockSelect, quoteOf, tierOf, shopOf, eventOf } = shapesOf(em);
  const rows = await boundSql<Record<string, unknown>>(
    em,
    `select ${lockSelect}
       from quotes q
       left join tiers t on t.id = q.tier_id
       left join shops s on s.id = q.shop_id and s.deleted_at is null
       left join events e on e.id = t.event_id
      where q.id = any(array(select jsonb_array_elements_text($1::jsonb)))
      order by q.id
        for update of q`,
    [JSON.stringify(ids)],
  );
  // A hot pool's batch is many quotes of one tier, shop and event: each distinct row is made once, and shared. As
  // entities of the unit of work (`em.map`) the three cost about 0.6 ms a batch to map (under the CPU profiler, at 32
  // clients), and the commit then compared them for changes; quotes cost about 0.1 ms each that way.
  const made = new Map<string, object>();
  const once = <T extends object>(
    row: Record<string, unknown>,
    alias: 't' | 's' | 'e',
    of: (row: Record<string, unknown>) => T,
  ): T | undefined => {
    const id = row[`${alias}.id`];
    if (id === null || id === undefined) return undefined;
    const seen = `${alias}:${id as string | number}`;
    let it = made.get(seen) as T | undefined;
    if (!it) made.set(seen, (it = of(row)));
    return it;
  };
  return rows.map((row) => ({
    quote: quoteOf(row),
    tier: once(row, 't', tierOf),
    shop: once(row, 's', shopOf),
    event: once(row, 'e', eventOf),
  }));
}

/**
 * What one batch writes: its holds, each from its quote, its callers' keys (with their outcomes) and the places to take
 * per pool.
 */
export interface BatchWrites {
  holds: readonly ReservationRow[];
  keys: readonly KeyWrite[];
  /** Places taken per pool, in pool id order. */
  takes: readonly { poolId: string; quantity: number }[];
}

/** What writing a batch found: pools with too few places, and whether a key was already held by another request. */
export interface BatchWritten {
  short: string[];
  /** A key of `keys` was stored already (or is being stored by another open transaction): it was not written. */
  keysTaken: boolean;
}

/**
 * Writes a batch: inserts its holds, sets each hold's quote `reservation_id`, takes the places of each pool (only where
 * `available_count` still has them) and, after the places, inserts the callers' idempotency keys with their outcomes
 * (`state = 'done'`, or `'in_flight'` for a call the orchestrator finishes), each key written once. A key whose row is
 * stale (past 24 h, or in flight past IN_FLIGHT_STALE_MS) is taken over; any other stored row is left as it is and
 * reported (`keysTaken`; the caller rolls back and re-runs with the stored rows read first). A key another open
 * transaction is inserting is waited for. Locks are taken in one order by every batch of every process: the quotes
 * (locked before), then the pools in id order, then the keys in (scope, key) order; so a single pool's update rides in
 * the same statement, and several pools (rare: one batch, several pools) take one statement each, before it. When a
 * pool has too few places nothing else is written (the caller rolls back).
 */
export async function writeBatch(em: EntityManager, w: BatchWrites, now: Date): Promise<BatchWritten> {
  const short: string[] = [];
  const inline = w.takes.length === 1 ? w.takes[0] : undefined;
  if (!inline) {
    for (const take of w.takes) {
      const rows = await sql(
        em,
        'update pools set available_count = available_count - ? where id = ? and available_count >= ? returning id',
        [take.quantity, take.poolId, take.quantity],
      );
      if (!rows.length) short.push(take.poolId);
    }
    if (short.length) return { short, keysTaken: false };
  }
  const { holdFields, holdColumns: list } = shapesOf(em);
  const holds = w.holds.map((h) => {
    const row: Record<string, unknown> = {};
    for (const { prop, column } of holdFields) row[column] = (h as unknown as Record<string, unknown>)[prop] ?? null;
    return row;
  });
  const used = w.holds.map((h) => ({ id: h.quoteId, reservation_id: h.id }));
  const keys = w.keys.map((k) => {
    // The reserve's answers hold no secret; a sealed outcome needs the sealer (IdempotencyStore.complete).
    if (k.response?.sealed) throw new Error('writeBatch stores no sealed response.');
    return {
      scope: k.scope,
      key: k.key,
      request_hash: k.requestHash,
      state: k.response ? 'done' : 'in_flight',
      status: k.response?.status ?? null,
      response: k.response ? k.response.body : null,
    };
  });
  const [row] = await boundSql<{ taken: number; keys: number }>(
    em,
    `with holds as (
       insert into reservations (${list}) select ${list} from jsonb_populate_recordset(null::reservations, $1::jsonb) returning 1
     ), used as (
       update quotes q set reservation_id = v.reservation_id
         from jsonb_to_recordset($2::jsonb) as v(id text, reservation_id text)
        where q.id = v.id and q.id = any($9::text[]) returning 1
     ), taken as (
       update pools set available_count = available_count - $4::int where id = $5::text and available_count >= $4::int returning 1
     ), keys as (
       insert into idempotency_keys (scope, key, request_hash, state, status, response, created_at)
       select v.scope, v.key, v.request_hash, v.state, v.status, v.response, $6::timestamptz
         from jsonb_to_recordset($3::jsonb) as v(scope text, key text, request_hash text, state text, status int, response jsonb)
        where $5::text is null or exists (select 1 from taken)
        order by v.scope, v.key
       on conflict (scope, key) do update
          set request_hash = excluded.request_hash, state = excluded.state, status = excluded.status, response = excluded.response, response_sealed = null, created_at = excluded.created_at
        where idempotency_keys.created_at < excluded.created_at - ($7::float8 * interval '1 millisecond')
           or (idempotency_keys.state = 'in_flight' and idempotency_keys.created_at < excluded.created_at - ($8::float8 * interval '1 millisecond'))
       returning 1
     )
     select (select count(*) from taken)::int as taken, (select count(*) from keys)::int as keys`,
    [
      JSON.stringify(holds),
      JSON.stringify(used),
      JSON.stringify(keys),
      inline?.quantity ?? 0,
      inline?.poolId ?? null,
      now.toISOString(),
      IDEMPOTENCY_TTL_MS,
      IN_FLIGHT_STALE_MS,
      // The quote ids again as an array: the planner then reaches the quotes by their key, not by a scan of the table
      // (it takes a set-returning function for 100 rows, and a young table for a small one).
      used.map((u) => u.id),
    ],
  );
  if (inline && row?.taken !== 1) return { short: [inline.poolId], keysTaken: false };
  return { short, keysTaken: (row?.keys ?? 0) !== keys.length };
}
