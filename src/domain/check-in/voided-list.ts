/**
 * The signed list of an event's voided tickets that scanners fetch: all of them, or those voided since a time (an
 * incremental update). It is a compact JWS signed with the active ticket-signing key, so a scanner trusts it with
 * the same JWKS it verifies ticket codes with.
 */
import { CompactSign } from 'jose';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Ticket } from '../../storage/entities/purchase.ts';
import { iso } from '../../kernel/wire.ts';
import { ToolError } from '../../kernel/errors.ts';
import type { ToolContext } from '../context.ts';
import { TICKET_CODE_ALG } from '../../tickets/ticket-keys.ts';
import { requireMerchantEvent } from '../purchase/event-access.ts';

export const VOID_LIST_TYP = 'tessera-void-list';
/** The most voided tickets one answer lists and signs; `nextCursor` continues. */
export const VOID_LIST_PAGE = 1000;
const b64 = (bytes: number) => Math.ceil((bytes * 4) / 3);
/**
 * The longest `signed`: a protected header of at most 200 bytes, a payload of at most 400 bytes besides its page of
 * `[ticketId, seconds]` pairs (an id of at most 100 characters and 11 digits, at most 120 bytes each), and an Ed25519
 * signature (64 bytes), each base64url, joined by two dots.
 */
export const VOID_LIST_SIGNED_MAX = b64(200) + 1 + b64(400 + VOID_LIST_PAGE * 120) + 1 + b64(64);

export interface VoidedTicket {
  ticketId: string;
  voidedAt: string;
}

export interface VoidList {
  eventId: string;
  since: string | null;
  generatedAt: string;
  tickets: VoidedTicket[];
  /** Compact JWS (EdDSA) over `{ evt, since, iat, voided: [[ticketId, voidedAt unix seconds], …], next? }`. */
  signed: string;
  /** Present when more voided tickets follow this page: pass it as `cursor` (it is also the payload's `next`). */
  nextCursor?: string;
}

/**
 * The event's voided tickets (voided at or after `since` when given), oldest first, signed: a page of at most
 * VOID_LIST_PAGE, after the ticket `cursor` names (the previous page's `nextCursor`).
 */
export async function voidedTicketList(
  ctx: Pick<ToolContext, 'em' | 'principal' | 'services' | 'clock'>,
  eventId: string,
  since?: Date,
  cursor?: string,
): Promise<VoidList> {
  const em: EntityManager = ctx.em;
  await requireMerchantEvent(em, ctx.principal, eventId);
  const last = cursor ? await em.findOne(Ticket, { id: cursor, eventId, state: 'void' }) : null;
  if (cursor && !last) throw new ToolError('invalid_input', 'Unknown `cursor`.', { field: 'cursor' });
  const after = last
    ? { $or: [{ voidedAt: { $gt: last.voidedAt } }, { voidedAt: last.voidedAt, id: { $gt: last.id } }] }
    : {};
  const found = await em.find(
    Ticket,
    { eventId, state: 'void', ...(since ? { voidedAt: { $gte: since } } : {}), ...after },
    { orderBy: { voidedAt: 'asc', id: 'asc' }, limit: VOID_LIST_PAGE + 1 },
  );
  const rows = found.slice(0, VOID_LIST_PAGE);
  const next = found.length > VOID_LIST_PAGE ? rows.at(-1)!.id : undefined;
  const now = ctx.clock.now();
  const key = await ctx.services.ticketKeys.active(ctx.em);
  const payload = {
    evt: eventId,
    since: since ? Math.floor(since.getTime() / 1000) : null,
    iat: Math.floor(now.getTime() / 1000),
    voided: rows.map((t) => [t.id, Math.floor(t.voidedAt!.getTime() / 1000)]),
    ...(next ? { next } : {}),
  };
  const signed = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: TICKET_CODE_ALG, kid: key.kid, typ: VOID_LIST_TYP })
    .sign(key.key);
  return {
    eventId,
    since: since ? iso(since) : null,
    generatedAt: iso(now),
    tickets: rows.map((t) => ({ ticketId: t.id, voidedAt: iso(t.voidedAt!) })),
    signed,
    ...(next ? { nextCursor: next } : {}),
  };
}
