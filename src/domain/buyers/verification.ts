/**
 * Six-digit codes emailed to the buyer before a sensitive operation. A code is bound to one buyer and one
 * purpose, stored as an HMAC under the server secret, compared in constant time, expires after 10 minutes,
 * allows 5 wrong attempts and is used at most once.
 */
import { randomInt } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { resolveLang } from '../../i18n/langs.ts';
import { codeMail } from '../../mail/templates.ts';
import { sql } from '../../storage/database.ts';
import { Buyer, VerificationChallenge } from '../../storage/entities/buyer.ts';
import { newId } from '../../storage/ids.ts';
import { refusePartnerOrigin } from './origin-guard.ts';
import { throttleMail } from './throttle.ts';
import { buyerOf, sessionLang } from './sessions.ts';

export const CODE_PURPOSES = [
  'save_card',
  'create_agent',
  'grant_permission',
  'change_agent_card',
  'raise_card_cap',
  'verify_session',
  'authorize_agent',
] as const;
/** The one purpose a bounded session may ask a code for: proving the buyer in the consent view (`stepUpSession`). */
export const STEP_UP_PURPOSE = 'verify_session';
export type CodePurpose = (typeof CODE_PURPOSES)[number];
export const CODE_TTL_MINUTES = 10;
export const CODE_MAX_ATTEMPTS = 5;

/** What a sensitive operation carries: the challenge asked for and the code from the e-mail. */
export interface CodeProof {
  challengeId?: string | undefined;
  code?: string | undefined;
}

const material = (challengeId: string, code: string) => `${challengeId}:${code}`;

/**
 * What a code is e-mailed for, beyond its purpose: the digest of the exact details (the operation must present the
 * same ones) and the values the e-mail's action sentence names (agent, shop, limits, card).
 */
export interface CodeSubject {
  digest: string;
  action: (lang: string) => Record<string, string>;
}

/** Creates a challenge for the calling buyer and emails its code. Never call inside a transaction. */
export async function requestCode(
  ctx: ToolContext,
  purpose: CodePurpose,
  subject?: CodeSubject,
): Promise<{ challengeId: string; expiresAt: string }> {
  refusePartnerOrigin(ctx);
  const principal = buyerOf(ctx);
  if (principal.mode !== 'full' && purpose !== STEP_UP_PURPOSE) {
    throw new ToolError('forbidden', 'A bounded buyer session cannot create or widen spending authority.', {
      sessionMode: principal.mode,
    });
  }
  const { services, clock } = ctx;
  const now = clock.now();
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const challengeId = newId('challenge', now);
  const expiresAt = new Date(now.getTime() + CODE_TTL_MINUTES * 60_000);
  const buyer = await services.db.transaction(async (em) => {
    const row = await em.findOne(Buyer, { id: principal.buyerId });
    if (!row) throw new ToolError('unauthenticated', 'The buyer of this session no longer exists.');
    await throttleMail(em, 'code', row.id, now);
    em.create(VerificationChallenge, {
      id: challengeId,
      buyerId: row.id,
      purpose,
      codeHash: services.identity.hmac(material(challengeId, code)),
      attempts: 0,
      maxAttempts: CODE_MAX_ATTEMPTS,
      expiresAt,
      usedAt: null,
      createdAt: now,
      subjectDigest: subject?.digest ?? null,
    });
    await em.flush();
    return row;
  });
  const lang = resolveLang([sessionLang(principal, buyer), ...(ctx.request.languages ?? [])]);
  await services.mail.send({
    to: buyer.email,
    ...codeMail(services.catalogs.mailTranslator(lang), code, purpose, CODE_TTL_MINUTES, subject?.action(lang)),
  });
  return { challengeId, expiresAt: expiresAt.toISOString() };
}

/** How a buyer-authority operation was consented to: an emailed code (to be marked used) or attested consent. */
export type Consent = { via: 'code'; challengeId: string } | { via: 'attested' };

/**
 * Checks a code for `purpose` in its own short transaction (call it outside any transaction: tools that
 * take a code are `transactional: false`). A wrong code is counted and committed; the fifth wrong one
 * locks the challenge. The code is marked used by `spendConsent`, inside the operation's transaction.
 * A code e-mailed for particular details (`subjectDigest`) proves consent to those only: a right code with other
 * details is `verification_code_mismatch` (not counted as a wrong try, and the code stays usable for its own).
 */
export async function verifyCode(
  ctx: ToolContext,
  purpose: CodePurpose,
  proof: CodeProof,
  subjectDigest: string | null = null,
): Promise<Consent> {
  refusePartnerOrigin(ctx);
  const principal = buyerOf(ctx);
  const { challengeId, code } = proof;
  if (!challengeId || !code) {
    throw new ToolError('verification_required', undefined, { purpose, request: 'POST /v1/buyer/verification-codes' });
  }
  const now = ctx.clock.now();
  const outcome = await ctx.services.db.transaction(async (em) => {
    const c = await em.findOne(VerificationChallenge, { id: challengeId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!c || c.buyerId !== principal.buyerId || c.purpose !== purpose) {
      throw new ToolError('verification_code_invalid', 'No such verification challenge for this buyer and operation.', {
        challengeId,
      });
    }
    if (c.usedAt || c.expiresAt <= now) throw new ToolError('verification_code_expired', undefined, { challengeId });
    if (c.attempts >= c.maxAttempts) throw new ToolError('verification_attempts_exhausted', undefined, { challengeId });
    if (ctx.services.identity.hmacMatches(material(c.id, code), c.codeHash)) {
      if ((c.subjectDigest ?? null) !== subjectDigest)
        throw new ToolError('verification_code_mismatch', undefined, { challengeId });
      return 'ok' as const;
    }
    c.attempts += 1;
    await em.flush();
    return c.maxAttempts - c.attempts;
  });
  if (outcome === 'ok') return { via: 'code', challengeId };
  if (outcome <= 0) throw new ToolError('verification_attempts_exhausted', undefined, { challengeId });
  throw new ToolError('verification_code_invalid', undefined, { challengeId, attemptsLeft: outcome });
}

/**
 * Marks the consent's code used inside the operation's transaction, so the operation and the use of the
 * code commit together; a code raced by two requests is used by one of them only.
 */
export async function spendConsent(em: EntityManager, consent: Consent, now: Date): Promise<void> {
  if (consent.via !== 'code') return;
  const used = await sql(
    em,
    'update verification_challenges set used_at = ? where id = ? and used_at is null returning id',
    [now, consent.challengeId],
  );
  if (!used.length)
    throw new ToolError('verification_code_expired', 'This code was already used; request a new one.', {
      challengeId: consent.challengeId,
    });
}

/**
 * The consent a buyer-authority operation runs under. A full session proves it with an emailed code;
 * a bounded session reaches here only when the tool allows attested consent (decided once, in
 * authorize), and then runs without a code, within the organization's ceilings (checked by the caller).
 */
export async function requireConsent(ctx: ToolContext, purpose: CodePurpose, proof: CodeProof): Promise<Consent> {
  const principal = buyerOf(ctx);
  if (principal.mode === 'full') return verifyCode(ctx, purpose, proof);
  if (principal.attested) return { via: 'attested' };
  throw new ToolError('forbidden', 'A bounded buyer session cannot create or widen spending authority.', {
    sessionMode: principal.mode,
  });
}
