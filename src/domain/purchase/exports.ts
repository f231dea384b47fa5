/**
 * CSV exports of a shop's orders and tickets (the console's Exports view). `create_export` is an ordinary call,
 * authorized in the orchestrator: it checks the shop (and event) and mints a short-lived, single-use download token,
 * stored only as its SHA-256, whose URL a browser can GET without a credential. The download redeems the token once
 * and streams the rows in keyset batches (constant memory for any number of rows). No ticket codes are exported: the
 * ticket id is the reference; a code admits at the door, so it stays with the buyer.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../../kernel/principal.ts';
import { hashToken } from '../../kernel/tokens.ts';
import { iso } from '../../kernel/wire.ts';
import { sql, type Database } from '../../storage/database.ts';
import { newId, randomToken } from '../../storage/ids.ts';
import { requireShop } from '../catalog/access.ts';
import { requireMerchantEvent } from './event-access.ts';
import { BUYER_COLUMNS, BUYER_JOIN, requireMerchantPrincipal } from './order-search.ts';
import { withAttendeeColumns } from './attendee-export.ts';
import { linesText, ORDER_LINES_COLUMN, type OrderLine } from './order-lines.ts';

/** How long a download link works (it works once). */
export const EXPORT_TTL_MS = 5 * 60_000;
/** Rows read per statement while streaming. */
export const EXPORT_BATCH = 1000;
export const EXPORT_KINDS = ['orders', 'tickets'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

export interface ExportFilter {
  eventId?: string | undefined;
  createdFrom?: string | undefined;
  createdBefore?: string | undefined;
}

/** Creates a download of `kind` for a shop of the caller's organization; returns its link. */
export async function createExport(
  em: EntityManager,
  principal: Principal,
  input: { merchantId: string; kind: ExportKind } & ExportFilter,
  now: Date,
  publicUrl: string,
) {
  const org = requireMerchantPrincipal(principal);
  const shop = await requireShop(em, principal, input.merchantId);
  if (input.eventId) await requireMerchantEvent(em, principal, input.eventId);
  const token = `tex_${randomToken()}`;
  const id = newId('exportDownload', now);
  const expiresAt = new Date(now.getTime() + EXPORT_TTL_MS);
  const filter: ExportFilter = {
    eventId: input.eventId,
    createdFrom: input.createdFrom,
    createdBefore: input.createdBefore,
  };
  await sql(
    em,
    `insert into export_downloads (id, token_hash, organization_id, shop_id, kind, filter, expires_at, created_at)
     values (?, ?, ?, ?, ?, ?, ?, ?)`,
    [id, hashToken(token), org, shop.id, input.kind, JSON.stringify(filter), expiresAt, now],
  );
  const day = iso(now).slice(0, 10);
  return {
    exportId: id,
    downloadUrl: `${publicUrl.replace(/\/$/, '')}/v1/exports/${token}`,
    expiresAt: iso(expiresAt),
    filename: `${input.kind}-${shop.id}-${day}.csv`,
  };
}

/** A redeemed download: what to stream and the file's name. */
export interface RedeemedExport {
  filename: string;
  header: readonly string[];
  rows: AsyncIterable<readonly unknown[]>;
}

/**
 * Redeems a download token: once, before it expires; otherwise (unknown, used, expired) undefined, answered 404.
 * Marking it used commits before the first row is read.
 */
export async function redeemExport(db: Database, token: string, now: Date): Promise<RedeemedExport | undefined> {
  const [row] = await db.execute<{ shop_id: string; kind: ExportKind; filter: ExportFilter; created_at: Date }>(
    `update export_downloads set used_at = ? where token_hash = ? and used_at is null and expires_at > ?
     returning shop_id, kind, filter, created_at`,
    [now, hashToken(token), now],
  );
  if (!row) return undefined;
  const filter = typeof row.filter === 'string' ? (JSON.parse(row.filter) as ExportFilter) : row.filter;
  const spec = row.kind === 'orders' ? ORDERS : await withAttendeeColumns(db, TICKETS, row.shop_id, filter.eventId);
  return {
    filename: `${row.kind}-${row.shop_id}-${iso(row.created_at).slice(0, 10)}.csv`,
    header: spec.header,
    rows: batches(db, spec, row.shop_id, filter),
  };
}

interface Spec {
  header: readonly string[];
  /** The key columns the batches follow, in order (the orders' first, so the shop's index on orders leads). */
  key: readonly string[];
  select: string;
  from: string;
  row: (r: Record<string, unknown>) => unknown[];
}

/** A timestamp column read by raw SQL (a string or a Date, by driver) as RFC 3339; null stays null. */
const at = (v: unknown): string | null => (v == null ? null : iso(new Date(v as string)));

/** An order's `tier_name`: its tier's name; a multi-line order's lines with their places (`2 × Adult; 1 × Child`). */
const tierCell = (r: Record<string, unknown>) => (r.order_lines ? linesText(r.order_lines as OrderLine[]) : r.tier);

const FROM = `from orders o join events e on e.id = o.event_id join tiers t on t.id = o.tier_id ${BUYER_JOIN}`;

const ORDERS: Spec = {
  header: [
    'order_id',
    'created_at',
    'state',
    'buyer_email',
    'buyer_name',
    'event_id',
    'event_title',
    'tier_name',
    'quantity',
    'total_minor',
    'refunded_minor',
    'currency',
  ],
  key: ['o.id'],
  select: `o.id, o.created_at, o.state, ${BUYER_COLUMNS}, o.event_id, e.title, t.name as tier,
           o.quantity, o.total_minor, o.refunded_minor, o.currency, ${ORDER_LINES_COLUMN}`,
  from: FROM,
  row: (r) => [
    r.id,
    at(r.created_at),
    r.state,
    r.buyer_email,
    r.buyer_name,
    r.event_id,
    r.title,
    tierCell(r),
    r.quantity,
    r.total_minor,
    r.refunded_minor,
    r.currency,
  ],
};

const TICKETS: Spec = {
  header: [
    'ticket_id',
    'order_id',
    'created_at',
    'state',
    'checked_in_at',
    'buyer_email',
    'buyer_name',
    'event_id',
    'event_title',
    'tier_name',
  ],
  key: ['o.id', 'k.id'],
  select: `k.id, o.id as order_id, k.created_at, k.state, k.checked_in_at, ${BUYER_COLUMNS},
           o.event_id, e.title, t.name as tier`,
  from: `from tickets k join orders o on o.id = k.order_id join events e on e.id = o.event_id
         join tiers t on t.id = k.tier_id ${BUYER_JOIN}`,
  row: (r) => [
    r.id,
    r.order_id,
    at(r.created_at),
    r.state,
    at(r.checked_in_at),
    r.buyer_email,
    r.buyer_name,
    r.event_id,
    r.title,
    r.tier,
  ],
};

/** The rows of a download, EXPORT_BATCH at a time in key order, each batch read only when the last one is consumed. */
async function* batches(db: Database, spec: Spec, shopId: string, f: ExportFilter): AsyncGenerator<unknown[]> {
  const where = ['o.shop_id = ?'];
  const params: unknown[] = [shopId];
  const add = (clause: string, value: unknown) => {
    where.push(clause);
    params.push(value);
  };
  if (f.eventId) add('o.event_id = ?', f.eventId);
  if (f.createdFrom) add('o.created_at >= ?', new Date(f.createdFrom));
  if (f.createdBefore) add('o.created_at < ?', new Date(f.createdBefore));
  const keys = spec.key.join(', ');
  const names = spec.key.map((k) => `${k.replace('.', '_')}_key`);
  const select = `${spec.select}, ${spec.key.map((k, i) => `${k} as ${names[i]}`).join(', ')}`;
  let after: unknown[] = spec.key.map(() => '');
  for (;;) {
    const rows = await db.execute<Record<string, unknown>>(
      `select ${select} ${spec.from}
        where ${where.join(' and ')} and (${keys}) > (${spec.key.map(() => '?').join(', ')})
        order by ${keys} limit ${EXPORT_BATCH}`,
      [...params, ...after],
    );
    for (const r of rows) yield spec.row(r);
    if (rows.length < EXPORT_BATCH) return;
    const last = rows.at(-1)!;
    after = names.map((n) => last[n]);
  }
}
