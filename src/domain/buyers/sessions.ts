/**
 * Buyers and their sessions: one buyer per e-mail address; full sessions after e-mail proof, bounded ones minted by
 * merchants.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { sql } from '../../storage/database.ts';
import { Buyer, type BuyerRow } from '../../storage/entities/buyer.ts';
import { newId } from '../../storage/ids.ts';
import type { Identity } from '../../kernel/identity.ts';
import type { Lang } from '../../i18n/langs.ts';

/** A full session (after the buyer followed an emailed link) lasts one hour. */
export const FULL_SESSION_TTL_SECONDS = 60 * 60;
/** A bounded session minted by a merchant lasts 30 minutes. */
export const BOUNDED_SESSION_TTL_SECONDS = 30 * 60;

/** E-mail addresses are compared trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The buyer with this address, created on first sight (race-safe). */
export async function findOrCreateBuyer(em: EntityManager, email: string, now: Date): Promise<BuyerRow> {
  const address = normalizeEmail(email);
  await sql(
    em,
    'insert into buyers (id, email, lang, created_at) values (?, ?, null, ?) on conflict (email) do nothing',
    [newId('buyer', now), address, now],
  );
  const buyer = await em.findOne(Buyer, { email: address }, { refresh: true });
  if (!buyer) throw new Error('buyer vanished after insert');
  return buyer;
}

/** The calling buyer's id, or `forbidden` for any other principal. */
export function buyerOf(ctx: Pick<ToolContext, 'principal'>): Extract<ToolContext['principal'], { kind: 'buyer' }> {
  if (ctx.principal.kind !== 'buyer') throw new ToolError('forbidden', 'Only a buyer session may do this.');
  return ctx.principal;
}

export interface IssuedSession {
  token: string;
  tokenType: 'Bearer';
  expiresAt: string;
  buyerId: string;
  mode: 'bounded' | 'full';
  merchantId: string | null;
  attested: boolean;
  lang: string | null;
}

/** Signs a buyer session JWT (held in page memory by the caller, never in a cookie). */
export async function issueBuyerSession(
  identity: Identity,
  args: {
    buyerId: string;
    mode: 'bounded' | 'full';
    merchantId: string | null;
    attested?: boolean;
    lang?: string | null;
    now: Date;
    ttlSeconds?: number;
  },
): Promise<IssuedSession> {
  const ttl = args.ttlSeconds ?? (args.mode === 'full' ? FULL_SESSION_TTL_SECONDS : BOUNDED_SESSION_TTL_SECONDS);
  const attested = args.mode === 'bounded' && args.attested === true;
  const token = await identity.sign(
    {
      typ: 'buyer',
      sub: args.buyerId,
      sid: newId('session', args.now),
      mode: args.mode,
      mid: args.merchantId,
      ...(attested ? { att: true } : {}),
      ...(args.lang ? { lng: args.lang } : {}),
    },
    ttl,
  );
  const expiresAt = new Date(Math.floor(args.now.getTime() / 1000) * 1000 + ttl * 1000).toISOString();
  return {
    token,
    tokenType: 'Bearer',
    expiresAt,
    buyerId: args.buyerId,
    mode: args.mode,
    merchantId: args.merchantId,
    attested,
    lang: args.lang ?? null,
  };
}

/**
 * The language of a buyer session: a merchant-minted session's `lang` (spec §2.3), else the buyer's own choice.
 * A full session's `lang` is only the choice the buyer made when signing in, so the buyer's latest choice
 * (`set_buyer_language`) comes first there. Null when neither is known: the browser's language applies.
 */
export function sessionLang(
  p: { mode: 'bounded' | 'full'; lang?: string | null | undefined },
  buyer: Pick<BuyerRow, 'lang'>,
): string | null {
  return p.mode === 'bounded' ? (p.lang ?? buyer.lang ?? null) : (buyer.lang ?? p.lang ?? null);
}

/** What a buyer session is for: the buyer, its mode and shop, and the language (`sessionLang`). */
export async function describeBuyerSession(ctx: Pick<ToolContext, 'principal' | 'em'>) {
  const p = buyerOf(ctx);
  const buyer = await ctx.em.findOne(Buyer, { id: p.buyerId });
  if (!buyer) throw new ToolError('unauthenticated', 'The buyer of this session no longer exists.');
  return {
    buyerId: buyer.id,
    email: buyer.email,
    mode: p.mode,
    merchantId: p.merchantId,
    attested: p.attested === true,
    lang: sessionLang(p, buyer),
  };
}

/** Records the buyer's own language choice (the pages' language menu): pages, sign-in links and codes follow it. */
export async function setBuyerLanguage(ctx: Pick<ToolContext, 'principal' | 'em'>, lang: Lang) {
  const p = buyerOf(ctx);
  const buyer = await ctx.em.findOne(Buyer, { id: p.buyerId });
  if (!buyer) throw new ToolError('unauthenticated', 'The buyer of this session no longer exists.');
  buyer.lang = lang;
  await ctx.em.flush();
  return { buyerId: buyer.id, lang, sessionLang: sessionLang(p, buyer) };
}
