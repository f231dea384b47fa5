/**
 * The waiting-list offer e-mail, in the person's language: places held, until when, and the reservation to confirm;
 * when a buyer (or their agent) joined, a link to the buyer page that pays for or declines it (`/buyer/offer`).
 * Offers made since the last pass are claimed (marked mailed) in one short transaction with FOR UPDATE SKIP LOCKED, so
 * several processes never mail one twice, and sent after its commit (never inside a transaction); a failed send is
 * logged and not retried (the offer itself stands, and `get_waiting_list_entry` shows it).
 */
import type { Logger } from 'pino';
import type { Clock } from '../../kernel/clock.ts';
import { describeError } from '../../kernel/errors.ts';
import type { Translate } from '../../i18n/i18n.ts';
import { resolveLang } from '../../i18n/langs.ts';
import { formatMoney } from '../../mail/templates.ts';
import { sql } from '../../storage/database.ts';
import type { Services } from '../context.ts';

export type WaitingListMailDeps = Pick<Services, 'db' | 'mail' | 'catalogs' | 'publicUrl'> & {
  clock: Clock;
  log: Logger;
};

const BATCH = 50;

interface Claimed {
  id: string;
  email: string;
  lang: string | null;
  quantity: number;
  reservation_id: string;
  buyer_id: string | null;
  expires_at: Date;
  total_minor: number;
  currency: string;
  tier: string;
  event: string;
  merchant: string;
}

/**
 * The buyer page's link, for an offer a buyer's own session or agent joined for (a merchant's entry by e-mail has no
 * buyer who could sign in to pay for it there): empty otherwise.
 */
function offerLink(deps: WaitingListMailDeps, c: Claimed, lang: string, t: Translate): string {
  if (!c.buyer_id) return '';
  const url = `${deps.publicUrl()}/buyer/offer?${new URLSearchParams({ reservation: c.reservation_id, lang })}`;
  return `\n\n${t('mail.waitingListOffer.link', { url })}`;
}

/** Mails up to a batch of new offers; returns how many were sent. */
export async function mailWaitingListOffers(deps: WaitingListMailDeps): Promise<number> {
  const claimed = await deps.db.transaction((em) =>
    sql<Claimed>(
      em,
      `with due as (
         select id from waiting_list_entries
          where state = 'offered' and not offer_mailed order by offered_at limit ${BATCH} for update skip locked
       ), marked as (
         update waiting_list_entries w set offer_mailed = true from due where w.id = due.id
         returning w.id, w.email, w.lang, w.quantity, w.reservation_id, w.tier_id, w.buyer_id
       )
       select m.id, m.email, m.lang, m.quantity, m.reservation_id, m.buyer_id, r.expires_at, r.total_minor, r.currency,
              t.name as tier, e.title as event, s.name as merchant
         from marked m
         join reservations r on r.id = m.reservation_id
         join tiers t on t.id = m.tier_id
         join events e on e.id = t.event_id
         join shops s on s.id = t.shop_id
        where m.email is not null and r.state = 'held'`,
    ),
  );
  let sent = 0;
  for (const c of claimed) {
    const lang = resolveLang([c.lang]);
    const t = deps.catalogs.mailTranslator(lang);
    const vars = {
      event: c.event,
      tier: c.tier,
      merchant: c.merchant,
      quantity: c.quantity,
      amount: formatMoney(lang, Number(c.total_minor), c.currency),
      expiresAt: new Date(c.expires_at).toISOString().slice(0, 16).replace('T', ' '),
      reservationId: c.reservation_id,
    };
    try {
      await deps.mail.send({
        to: c.email,
        subject: t('mail.waitingListOffer.subject', vars),
        text: t('mail.waitingListOffer.body', vars) + offerLink(deps, c, lang, t),
      });
      sent++;
    } catch (err) {
      deps.log.error({ err: describeError(err), entryId: c.id }, 'waiting-list offer mail failed');
    }
  }
  return sent;
}
