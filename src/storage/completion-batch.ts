/**
 * Several paid purchases' completions written in one statement (a group of confirms,
 * src/domain/purchase/confirm-groups.ts): the same writes and conditions as `writeCompletion`
 * (completion-statements.ts), once per purchase, so a group of N sends one statement instead of N. Each purchase is
 * written whole or not at all: its payment still pending, its reservation unchanged since it was read, its ticket key
 * still active; the rows are locked in id order (payments, then reservations), as every writer of a payment locks them.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { boundSql } from './database.ts';
import { recordedData } from '../kernel/event-data.ts';
import type { CompletionWrite } from './completion-statements.ts';

/**
 * Writes each completion whose conditions hold, in `em`'s transaction, in one statement; returns the payment ids
 * written. The payments must be distinct.
 */
export async function writeCompletions(em: EntityManager, writes: readonly CompletionWrite[]): Promise<Set<string>> {
  if (!writes.length) return new Set();
  const rows = writes.map((w) => ({
    pid: w.payment.id,
    pref: w.payment.providerReference,
    rid: w.reservation.id,
    rstate: w.reservation.state,
    rupd: w.reservation.updatedAt.toISOString(),
    kid: w.kid,
    oid: w.order.id,
    shop: w.order.shopId,
    org: w.order.organizationId,
    owner: w.order.ownerKey,
    buyer: w.order.buyerId ?? null,
    ev: w.order.eventId,
    tier: w.order.tierId,
    qty: w.order.quantity,
    total: w.order.totalMinor,
    cur: w.order.currency,
    now: w.now.toISOString(),
    mail: w.mailId,
    eid: w.event.id,
    etype: w.event.type,
    edata: recordedData(w.event.data),
    tickets: w.tickets.map((t) => ({
      id: t.id,
      code: t.code,
      signed: t.signedCode,
      name: t.attendeeName ?? null,
      answers: t.attendeeAnswers ?? null,
    })),
  }));
  const done = await boundSql<{ pid: string }>(
    em,
    `with j as (
       select * from jsonb_to_recordset($1::jsonb) as j(pid text, pref text, rid text, rstate text, rupd timestamptz,
         kid text, oid text, shop text, org text, owner text, buyer text, ev text, tier text, qty int, total int,
         cur text, now timestamptz, mail text, eid text, etype text, edata text, tickets jsonb)),
     lp as (select p.id from payments p where p.id in (select pid from j) and p.state = 'pending'
             order by p.id for update),
     lr as (
       select r.id from reservations r join j on j.rid = r.id
        where r.state = j.rstate and date_trunc('milliseconds', r.updated_at) = j.rupd
          and exists (select from lp where lp.id = j.pid)
        order by r.id for update of r),
     ok as (
       select j.* from j join lr on lr.id = j.rid
        where exists (select from ticket_signing_keys k where k.kid = j.kid and k.retired_at is null)),
     p as (
       update payments x set state = 'succeeded', failure_code = null,
              provider_reference = coalesce(x.provider_reference, ok.pref), updated_at = ok.now
         from ok where x.id = ok.pid),
     r as (
       update reservations x set state = 'completed', release_reason = null, released_at = null,
              payment_deadline = null, completed_at = ok.now, updated_at = ok.now
         from ok where x.id = ok.rid),
     o as (
       insert into orders (id, shop_id, organization_id, owner_key, buyer_id, reservation_id, payment_id, event_id,
                           tier_id, quantity, total_minor, currency, state, refund_reason, refunded_minor, created_at,
                           refunded_at)
       select oid, shop, org, owner, buyer, rid, pid, ev, tier, qty, total, cur, 'completed', null, 0, now, null
         from ok),
     t as (
       insert into tickets (id, order_id, event_id, tier_id, code, state, signing_key_id, signed_code, created_at,
                            attendee_name, attendee_answers)
       select tk.id, ok.oid, ok.ev, ok.tier, tk.code, 'valid', ok.kid, tk.signed, ok.now, tk.name, tk.answers
         from ok, jsonb_to_recordset(ok.tickets) as tk(id text, code text, signed text, name text, answers jsonb)),
     m as (
       insert into order_mail (id, kind, order_id, refund_id, next_attempt_at, created_at)
       select mail, 'confirmation', oid, null, now, now from ok where mail is not null
       on conflict do nothing),
     e as (
       insert into webhook_events (id, shop_id, type, data, created_at)
       select eid, shop, etype, edata::jsonb, now from ok)
     select pid from ok`,
    [JSON.stringify(rows)],
  );
  return new Set(done.map((d) => d.pid));
}
