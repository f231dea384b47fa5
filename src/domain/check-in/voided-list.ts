/**
 * The signed list of an event's voided tickets that scanners fetch: all of them, or those voided since a time (an
 * incremental update). It is a compact JWS signed with the active ticket-signing key, so a scanner trusts it with
 * the same JWKS it verifies ticket codes with.
 */
import { CompactSign } from 'jose';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Ticket } from '../../storage/entities/purchase.ts';
import { iso } from '../../kernel/wire.ts';
import type { ToolContext } from '../context.ts';
import { TICKET_CODE_ALG } from '../../tickets/ticket-keys.ts';
import { requireMerchantEvent } from '../purchase/event-access.ts';

export const VOID_LIST_TYP = 'tessera-void-list';

export interface VoidedTicket {
  ticketId: string;
  voidedAt: string;
}

export interface VoidList {
  eventId: string;
  since: string | null;
  generatedAt: string;
  tickets: VoidedTicket[];
  /** Compact JWS (EdDSA) over `{ evt, since, iat, voided: [[ticketId, voidedAt unix seconds], …] }`. */
  signed: string;
}

/** The event's voided tickets (voided at or after `since` when given), oldest first, signed. */
export async function voidedTicketList(
  ctx: Pick<ToolContext, 'em' | 'principal' | 'services' | 'clock'>,
  eventId: string,
  since?: Date,
): Promise<VoidList> {
  const em: EntityManager = ctx.em;
  await requireMerchantEvent(em, ctx.principal, eventId);
  const rows = await em.find(
    Ticket,
    { eventId, state: 'void', ...(since ? { voidedAt: { $gte: since } } : {}) },
    { orderBy: { voidedAt: 'asc', id: 'asc' } },
  );
  const now = ctx.clock.now();
  const key = await ctx.services.ticketKeys.active(ctx.em);
  const payload = {
    evt: eventId,
    since: since ? Math.floor(since.getTime() / 1000) : null,
    iat: Math.floor(now.getTime() / 1000),
    voided: rows.map((t) => [t.id, Math.floor(t.voidedAt!.getTime() / 1000)]),
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
  };
}
