/**
 * Reading waiting-list entries as callers see them: an offered entry's state follows its hold (completed: `purchased`;
 * released by its holder: `declined`; expired or failed: `expired`), so nothing on the confirm path writes the list.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../storage/database.ts';
import { iso } from '../../kernel/wire.ts';
import type { Principal } from '../../kernel/principal.ts';
import { requireAccess } from './purchase-access.ts';
import type { TierRow } from '../../storage/entities/catalog.ts';

/** The `sold_out` refusal's hint that the caller may join the tier's waiting list (`join_waiting_list`). */
export function waitingListHint(tier: Pick<TierRow, 'waitingList'>): { waitingList?: true } {
  return tier.waitingList ? { waitingList: true } : {};
}

export const WAITING_LIST_STATES = [
  'waiting',
  'offered',
  'purchased',
  'expired',
  'declined',
  'left',
  'removed',
] as const;
export type WaitingListState = (typeof WAITING_LIST_STATES)[number];

/** An entry as stored, with its state as it stands and its place in line while waiting. */
export interface EntryRow {
  id: string;
  line_no: string | number;
  shop_id: string;
  organization_id: string;
  event_id: string;
  tier_id: string;
  pool_id: string;
  owner_key: string;
  buyer_id: string | null;
  email: string | null;
  lang: string | null;
  quantity: number;
  stored_state: string;
  state: WaitingListState;
  reservation_id: string | null;
  joined_at: Date;
  offered_at: Date | null;
  ended_at: Date | null;
  offer_expires_at: Date | null;
  total_minor: number | null;
  currency: string | null;
  position: string | number | null;
}

/** The select every read of entries uses (`w` the entry, `r` its offer's hold); `where` and order follow it. */
export const ENTRY_SELECT = `
  select w.id, w.line_no, w.shop_id, w.organization_id, w.event_id, w.tier_id, w.pool_id, w.owner_key, w.buyer_id, w.email,
         w.lang, w.quantity, w.state as stored_state, w.reservation_id, w.joined_at, w.offered_at, w.ended_at,
         case when w.state <> 'offered' then w.state
              when r.state = 'completed' then 'purchased'
              when r.state = 'released' and r.release_reason = 'buyer' then 'declined'
              when r.state = 'released' then 'expired'
              else 'offered' end as state,
         r.expires_at as offer_expires_at, r.total_minor, r.currency,
         case when w.state = 'waiting' then (
           select count(*) from waiting_list_entries x
            where x.tier_id = w.tier_id and x.state = 'waiting' and x.line_no <= w.line_no
         ) end as position
    from waiting_list_entries w
    left join reservations r on r.id = w.reservation_id`;

/** One entry by id the principal may see (locked with `lock`), else `not_found`. */
export async function requireEntry(
  em: EntityManager,
  principal: Principal,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<EntryRow> {
  const [row] = await sql<EntryRow>(em, `${ENTRY_SELECT} where w.id = ?${opts.lock ? ' for update of w' : ''}`, [id]);
  const owned = row && {
    ...row,
    organizationId: row.organization_id,
    shopId: row.shop_id,
    ownerKey: row.owner_key,
    buyerId: row.buyer_id,
  };
  requireAccess(principal, owned, 'waiting list entry', id);
  return row!;
}

/** What a caller sees of an entry; the e-mail only for the merchant (`withEmail`). */
export interface EntryView {
  id: string;
  merchantId: string;
  eventId: string;
  tierId: string;
  quantity: number;
  state: WaitingListState;
  position?: number;
  email?: string;
  joinedAt: string;
  offer?: { reservationId: string; expiresAt: string; totalMinor: number; currency: string };
}

export function entryView(row: EntryRow, withEmail = false): EntryView {
  return {
    id: row.id,
    merchantId: row.shop_id,
    eventId: row.event_id,
    tierId: row.tier_id,
    quantity: row.quantity,
    state: row.state,
    ...(row.position != null ? { position: Number(row.position) } : {}),
    ...(withEmail && row.email ? { email: row.email } : {}),
    joinedAt: iso(row.joined_at),
    ...(row.reservation_id && row.offer_expires_at
      ? {
          offer: {
            reservationId: row.reservation_id,
            expiresAt: iso(row.offer_expires_at),
            totalMinor: Number(row.total_minor),
            currency: row.currency ?? '',
          },
        }
      : {}),
  };
}
