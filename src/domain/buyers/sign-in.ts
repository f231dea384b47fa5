/**
 * Buyer sign-in by magic link: a single-use link (15 minutes; only its token's hash is stored) is emailed;
 * redeeming it on the service's own page gives a FULL buyer session for the shop the link was asked for.
 */
import type { ToolContext } from '../context.ts';
import { hashToken } from '../../kernel/tokens.ts';
import { ToolError } from '../../kernel/errors.ts';
import { resolveLang } from '../../i18n/langs.ts';
import { signInMail } from '../../mail/templates.ts';
import { sql } from '../../storage/database.ts';
import { Shop } from '../../storage/entities/catalog.ts';
import { Buyer } from '../../storage/entities/buyer.ts';
import { Reservation } from '../../storage/entities/purchase.ts';
import { newId, randomToken } from '../../storage/ids.ts';
import { refusePartnerOrigin } from './origin-guard.ts';
import { throttleMail } from './throttle.ts';
import { findOrCreateBuyer, issueBuyerSession, normalizeEmail, type IssuedSession } from './sessions.ts';

export const SIGN_IN_LINK_TTL_MINUTES = 15;

/**
 * The page the emailed link opens (the buyer pages' /buyer/verify); the token rides in the fragment so it never reaches
 * server logs or referrers.
 */
export function signInUrl(
  publicUrl: string,
  token: string,
  lang: string,
  authorization?: string,
  limitRaise?: string,
  offer?: string,
): string {
  const back = authorization
    ? `&authorization=${encodeURIComponent(authorization)}`
    : limitRaise
      ? `&limitRaise=${encodeURIComponent(limitRaise)}`
      : offer
        ? `&offer=${encodeURIComponent(offer)}`
        : '';
  return `${publicUrl}/buyer/verify?lang=${encodeURIComponent(lang)}${back}#token=${token}`;
}

/** Stores a link and emails it. Answers the same whether or not the address is known (no enumeration). */
export async function requestSignInLink(
  ctx: ToolContext,
  input: {
    email: string;
    merchantId?: string | undefined;
    lang?: string | undefined;
    authorization?: string | undefined;
    limitRaise?: string | undefined;
    /** The waiting-list offer's reservation (rsv_…) the link returns to (/buyer/offer). */
    offer?: string | undefined;
  },
): Promise<{ sent: true; expiresAt: string }> {
  refusePartnerOrigin(ctx);
  const { services, clock } = ctx;
  const now = clock.now();
  const email = normalizeEmail(input.email);
  const token = randomToken(32);
  const expiresAt = new Date(now.getTime() + SIGN_IN_LINK_TTL_MINUTES * 60_000);
  const { shopName, buyerLang } = await services.db.transaction(async (em) => {
    // A link back to a waiting-list offer signs in for the offer's shop (read only when an offer is named).
    const offerShop = input.offer && !input.merchantId ? await em.findOne(Reservation, { id: input.offer }) : null;
    const merchantId = input.merchantId ?? offerShop?.shopId;
    const shop = merchantId ? await em.findOne(Shop, { id: merchantId, deletedAt: null }) : null;
    if (input.merchantId && !shop)
      throw new ToolError('not_found', `No shop ${input.merchantId}.`, { merchantId: input.merchantId });
    await throttleMail(em, 'signIn', email, now);
    const buyer = await em.findOne(Buyer, { email });
    await sql(
      em,
      `insert into sign_in_links (id, token_hash, email, merchant_id, lang, expires_at, used_at, created_at)
       values (?, ?, ?, ?, ?, ?, null, ?)`,
      [newId('signInLink', now), hashToken(token), email, shop?.id ?? null, input.lang ?? null, expiresAt, now],
    );
    return { shopName: shop?.name ?? null, buyerLang: buyer?.lang ?? null };
  });
  const lang = resolveLang([input.lang, buyerLang, ...(ctx.request.languages ?? [])]);
  const link = signInUrl(services.publicUrl(), token, lang, input.authorization, input.limitRaise, input.offer);
  await services.mail.send({
    to: email,
    ...signInMail(services.catalogs.mailTranslator(lang), link, SIGN_IN_LINK_TTL_MINUTES, shopName),
  });
  return { sent: true, expiresAt: expiresAt.toISOString() };
}

/** Redeems a link exactly once (an atomic conditional update) and signs a full session. */
export async function completeSignIn(ctx: ToolContext, token: string): Promise<IssuedSession> {
  refusePartnerOrigin(ctx);
  const { em, clock, services } = ctx;
  const now = clock.now();
  const rows = await sql<{ email: string; merchant_id: string | null; lang: string | null }>(
    em,
    `update sign_in_links set used_at = ?
      where token_hash = ? and used_at is null and expires_at > ?
      returning email, merchant_id, lang`,
    [now, hashToken(token), now],
  );
  const link = rows[0];
  if (!link) throw new ToolError('sign_in_link_invalid');
  if (link.merchant_id && !(await em.findOne(Shop, { id: link.merchant_id, deletedAt: null }))) {
    throw new ToolError('sign_in_link_invalid', 'The shop this link was for no longer exists.');
  }
  const buyer = await findOrCreateBuyer(em, link.email, now);
  if (link.lang) buyer.lang = link.lang;
  await em.flush();
  ctx.events.record({ event: 'sign_in', surface: 'buyer', buyerId: buyer.id, merchantId: link.merchant_id });
  return issueBuyerSession(services.identity, {
    buyerId: buyer.id,
    mode: 'full',
    merchantId: link.merchant_id,
    lang: link.lang ?? buyer.lang ?? null,
    now,
  });
}
