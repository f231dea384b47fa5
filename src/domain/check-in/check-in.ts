/**
 * Check-in at the door. A scan presents a ticket's signed code (or its opaque code): the first scan admits and records
 * when and on which device; a later one answers `already_checked_in` with when; a voided ticket `ticket_void`; a forged
 * or tampered code, or another organization's ticket, `invalid_ticket_code`; another event's ticket
 * `ticket_wrong_event`. Offline scanners download the event's check-in list, verify codes with the published JWKS, and
 * upload their scans later: the earliest scan of a ticket wins, whichever device or upload it came from.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../storage/database.ts';
import { Ticket, type TicketRow } from '../../storage/entities/purchase.ts';
import { emitEvent } from '../../webhooks/outbox.ts';
import { ToolError } from '../../kernel/errors.ts';
import { iso, isoOrNull } from '../../kernel/wire.ts';
import type { ToolContext } from '../context.ts';
import { ticketView } from '../purchase/purchase-view.ts';
import { verifyTicketCode } from '../../tickets/ticket-codes.ts';
import { requireMerchantEvent } from '../purchase/event-access.ts';
import type { PublicTicketKey } from '../../tickets/ticket-keys.ts';

type Ctx = Pick<ToolContext, 'em' | 'principal' | 'services' | 'clock'>;

/** How far in the future an uploaded scan time may be (scanner clocks drift). */
export const SCAN_CLOCK_SKEW_MS = 5 * 60_000;

/** How long before the event starts a scan may be dated (doors, early entry). */
export const SCAN_BEFORE_START_MS = 24 * 3_600_000;

/**
 * The id of the ticket a code names, checked against the event, without locking; throws the code's own refusal. A
 * ticket of another event of the same organization is `ticket_wrong_event` (naming it helps the door); a ticket of
 * another organization is `invalid_ticket_code`, like an unknown code, so a merchant learns nothing of another
 * organization's tickets or events.
 */
async function ticketIdForCode(em: EntityManager, keys: readonly PublicTicketKey[], eventId: string, code: string) {
  const wrongEvent = async (ticketId: string, evt: string) => {
    const [same] = await sql<{ n: number }>(
      em,
      `select 1 as n from events e join shops s on s.id = e.shop_id, events h join shops hs on hs.id = h.shop_id
       where e.id = ? and h.id = ? and s.organization_id = hs.organization_id`,
      [evt, eventId],
    );
    return same
      ? new ToolError('ticket_wrong_event', undefined, { ticketId, eventId: evt })
      : new ToolError('invalid_ticket_code');
  };
  if (code.includes('.')) {
    const claims = await verifyTicketCode(keys, code);
    if (claims.evt !== eventId) throw await wrongEvent(claims.tid, claims.evt);
    return claims.tid;
  }
  const [row] = await sql<{ id: string; event_id: string }>(em, 'select id, event_id from tickets where code = ?', [
    code,
  ]);
  if (!row) throw new ToolError('invalid_ticket_code');
  if (row.event_id !== eventId) throw await wrongEvent(row.id, row.event_id);
  return row.id;
}

/** The ticket a code names, checked against the event and locked; throws the code's own refusal. */
async function ticketForCode(em: EntityManager, keys: readonly PublicTicketKey[], eventId: string, code: string) {
  const id = await ticketIdForCode(em, keys, eventId, code);
  const ticket = await em.findOne(Ticket, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!ticket) throw new ToolError('invalid_ticket_code');
  return ticket;
}

/** Scans one code online: admits it now on `device`, or refuses with its own code. */
export async function checkIn(ctx: Ctx, eventId: string, code: string, device: string) {
  const { em } = ctx;
  await requireMerchantEvent(em, ctx.principal, eventId);
  const ticket = await ticketForCode(em, await ctx.services.ticketKeys.publicKeys(ctx.em), eventId, code);
  if (ticket.state === 'void') {
    throw new ToolError('ticket_void', undefined, {
      ticketId: ticket.id,
      voidReason: ticket.voidReason,
      voidedAt: isoOrNull(ticket.voidedAt),
    });
  }
  if (ticket.checkedInAt) {
    throw new ToolError('already_checked_in', undefined, {
      ticketId: ticket.id,
      checkedInAt: iso(ticket.checkedInAt),
      device: ticket.checkedInDevice,
    });
  }
  const now = ctx.clock.now();
  await admit(em, ticket, now, device, now);
  return { result: 'admitted' as const, ticket: ticketView(ticket) };
}

async function admit(em: EntityManager, ticket: TicketRow, at: Date, device: string, now: Date): Promise<void> {
  const first = !ticket.checkedInAt;
  ticket.checkedInAt = at;
  ticket.checkedInDevice = device;
  await em.flush();
  if (first) {
    const [order] = await sql<{ shop_id: string }>(em, 'select shop_id from orders where id = ?', [ticket.orderId]);
    await emitEvent(em, {
      shopId: order!.shop_id,
      type: 'ticket.checked_in',
      data: { orderId: ticket.orderId, eventId: ticket.eventId, ticket: ticketView(ticket) },
      now,
    });
  }
}

/** What an offline scanner downloads: every ticket of the event with its state, and the keys to verify codes with. */
export async function checkInList(ctx: Ctx, eventId: string) {
  await requireMerchantEvent(ctx.em, ctx.principal, eventId);
  const tickets = await ctx.em.find(Ticket, { eventId }, { orderBy: { id: 'asc' } });
  return {
    eventId,
    generatedAt: iso(ctx.clock.now()),
    keys: await ctx.services.ticketKeys.publicKeys(ctx.em),
    tickets: tickets.map((t) => ({
      ticketId: t.id,
      tierId: t.tierId,
      state: t.state,
      checkedInAt: isoOrNull(t.checkedInAt),
      checkedInDevice: t.checkedInDevice ?? null,
      ...(t.attendeeName ? { attendeeName: t.attendeeName } : {}),
    })),
  };
}

export const SCAN_RESULTS = [
  'admitted',
  'already_checked_in',
  'ticket_void',
  'invalid_ticket_code',
  'ticket_wrong_event',
] as const;
export type ScanResult = (typeof SCAN_RESULTS)[number];

export interface Scan {
  code: string;
  scannedAt: string;
}

/** A code's own refusals, answered per scan in an upload. */
const CODE_REFUSALS = ['invalid_ticket_code', 'ticket_wrong_event'] as const;

/** Refuses an upload whose scan `index` is dated outside `[earliest, latest]`. */
function outOfRange(index: number, at: Date, earliest: Date, latest: Date): ToolError {
  return new ToolError(
    'scan_time_out_of_range',
    `scans[${index}].scannedAt is outside the times this scan could have happened ` +
      `(${iso(earliest)} to ${iso(latest)}).`,
    { field: `scans.${index}.scannedAt`, index, scannedAt: iso(at), earliest: iso(earliest), latest: iso(latest) },
  );
}

/**
 * Applies an offline scanner's scans. Per ticket, the earliest scan known (this upload's or an earlier record)
 * holds the check-in: an earlier uploaded scan moves `checkedInAt` back to it. Each scan is answered in input order:
 * `admitted` (it holds the check-in), `already_checked_in` (with the scan that holds it), or its refusal code.
 *
 * A scan's time must be one it could have happened at: not before `SCAN_BEFORE_START_MS` ahead of the event's start,
 * nor before its ticket was issued, nor after the upload (each with `SCAN_CLOCK_SKEW_MS` for scanner clocks); else
 * the whole upload is refused with `scan_time_out_of_range` and nothing is applied, so a made-up early time cannot
 * take over a real check-in. The tickets are locked in id order, whatever the scans' order, so overlapping uploads
 * wait for each other instead of deadlocking.
 */
export async function uploadScans(ctx: Ctx, eventId: string, device: string, scans: readonly Scan[]) {
  const { em } = ctx;
  const event = await requireMerchantEvent(em, ctx.principal, eventId);
  const now = ctx.clock.now();
  const keys = await ctx.services.ticketKeys.publicKeys(ctx.em);
  const latest = new Date(now.getTime() + SCAN_CLOCK_SKEW_MS);
  const opens = new Date(event.startsAt.getTime() - SCAN_BEFORE_START_MS);
  const parsed: { index: number; at: Date; ticketId?: string; refusal?: ScanResult }[] = [];
  for (const [index, s] of scans.entries()) {
    const at = new Date(s.scannedAt);
    if (at > latest || at < opens) throw outOfRange(index, at, opens, latest);
    try {
      parsed.push({ index, at, ticketId: await ticketIdForCode(em, keys, eventId, s.code) });
    } catch (err) {
      if (!(err instanceof ToolError) || !CODE_REFUSALS.includes(err.code as never)) throw err;
      parsed.push({ index, at, refusal: err.code as ScanResult });
    }
  }
  const ids = [...new Set(parsed.flatMap((s) => (s.ticketId ? [s.ticketId] : [])))].sort();
  const locked = ids.length
    ? await em.find(Ticket, { id: { $in: ids } }, { lockMode: LockMode.PESSIMISTIC_WRITE, orderBy: { id: 'asc' } })
    : [];
  const tickets = new Map(locked.map((t) => [t.id, t]));
  for (const s of parsed) {
    const ticket = s.ticketId ? tickets.get(s.ticketId) : undefined;
    if (s.ticketId && !ticket) s.refusal = 'invalid_ticket_code';
    const issued = ticket && new Date(ticket.createdAt.getTime() - SCAN_CLOCK_SKEW_MS);
    if (issued && s.at < issued) throw outOfRange(s.index, s.at, issued > opens ? issued : opens, latest);
  }
  const outcome: { ticket?: TicketRow; refusal?: ScanResult; at: Date }[] = [];
  // Earliest first, so each ticket's winning scan is applied before the later ones are compared with it.
  for (const s of [...parsed].sort((a, b) => a.at.getTime() - b.at.getTime() || a.index - b.index)) {
    const ticket = s.ticketId ? tickets.get(s.ticketId) : undefined;
    if (!ticket || s.refusal) outcome[s.index] = { refusal: s.refusal ?? 'invalid_ticket_code', at: s.at };
    else if (ticket.state === 'void') outcome[s.index] = { ticket, refusal: 'ticket_void', at: s.at };
    else {
      if (!ticket.checkedInAt || ticket.checkedInAt > s.at) await admit(em, ticket, s.at, device, now);
      outcome[s.index] = { ticket, at: s.at };
    }
  }
  await em.flush();
  const results = outcome.map((o, index) => {
    const t = o.ticket;
    const holds = t && !o.refusal && t.checkedInAt?.getTime() === o.at.getTime() && t.checkedInDevice === device;
    const result: ScanResult = o.refusal ?? (holds ? 'admitted' : 'already_checked_in');
    return {
      index,
      result,
      ticketId: t?.id ?? null,
      scannedAt: iso(o.at),
      checkedInAt: isoOrNull(t?.checkedInAt),
      checkedInDevice: t?.checkedInDevice ?? null,
    };
  });
  return { eventId, device, results };
}
