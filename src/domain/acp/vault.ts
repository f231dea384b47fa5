/**
 * The sandbox delegated-payment vault (ACP delegate_payment): a documented sandbox test card becomes a
 * one-time token (`vt_…`) spendable only within its allowance — max_amount, currency, checkout session,
 * merchant and expiry — which complete enforces. Card numbers and CVCs are never stored or logged, nor the token:
 * its row is keyed by a keyed hash of it (`Services.vaultTokenHash`), so a database dump cannot spend one.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ToolError } from '../../kernel/errors.ts';
import { SANDBOX_METHODS, methodForCard } from '../../payments/sandbox-methods.ts';
import { AcpVaultToken, type AcpVaultTokenRow } from '../../storage/entities/acp.ts';
import { newId } from '../../storage/ids.ts';
import { legacyVaultTokenHash } from '../../kernel/tokens.ts';

export interface DelegateCard {
  number: string;
  exp_month?: string | undefined;
  exp_year?: string | undefined;
  display_brand?: string | undefined;
  display_last4?: string | undefined;
  display_card_funding_type: 'credit' | 'debit' | 'prepaid';
}

export interface Allowance {
  reason: 'one_time';
  max_amount: number;
  currency: string;
  checkout_session_id: string;
  merchant_id: string;
  expires_at: string;
}

export interface DelegateRequest {
  payment_method: DelegateCard;
  allowance: Allowance;
  metadata: Record<string, string>;
}

const card = (message: string, field: string) =>
  new ToolError('invalid_card', message, { field: `payload.payment_method.${field}` });

/** The sandbox payment method a test card stands for, after the expiry and display checks. */
function sandboxMethodOf(c: DelegateCard, now: Date): { method: string; scheme: string; last4: string } {
  const digits = c.number.replace(/[\s-]/g, '');
  const method = /^\d{12,19}$/.test(digits) ? methodForCard(digits) : undefined;
  if (!method) throw card('The card number is not a sandbox test card (e.g. 4242 4242 4242 4242).', 'number');
  const scheme = SANDBOX_METHODS[method]!.scheme;
  const last4 = digits.slice(-4);
  if (c.exp_month !== undefined && !/^(0[1-9]|1[0-2])$/.test(c.exp_month))
    throw card('exp_month must be "01" to "12".', 'exp_month');
  if (c.exp_year !== undefined && !/^\d{4}$/.test(c.exp_year))
    throw card('exp_year must be a four-digit year.', 'exp_year');
  if (c.exp_month && c.exp_year) {
    const endOfMonth = Date.UTC(Number(c.exp_year), Number(c.exp_month), 1);
    if (endOfMonth <= now.getTime()) throw card('The card has expired.', 'exp_year');
  }
  if (c.display_brand && c.display_brand.toLowerCase() !== scheme)
    throw card(`The card is a ${scheme} card, not ${c.display_brand}.`, 'display_brand');
  if (c.display_last4 && c.display_last4 !== last4)
    throw card('display_last4 does not match the card number.', 'display_last4');
  return { method, scheme, last4 };
}

/** Hashes a token to its stored form. */
export type TokenHash = (token: string) => string;

/** The keys a token may be stored under: its keyed hash, or its SHA-256 (stored before; migration 0020). */
const storedKeys = (hash: TokenHash, token: string): string[] => [hash(token), legacyVaultTokenHash(token)];

/**
 * Issues a token for the card within the allowance and returns it; only its keyed hash is stored. `ownerKey` records
 * who asked (for audit).
 */
export async function issueToken(
  em: EntityManager,
  req: DelegateRequest,
  ctx: { ownerKey: string; now: Date; idempotencyKey: string | undefined; hash: TokenHash },
): Promise<{ id: string; created: string; metadata: Record<string, string> }> {
  const { method, scheme, last4 } = sandboxMethodOf(req.payment_method, ctx.now);
  const expiresAt = new Date(req.allowance.expires_at);
  if (expiresAt <= ctx.now) {
    throw new ToolError('invalid_input', 'allowance.expires_at must be in the future.', {
      field: 'payload.allowance.expires_at',
    });
  }
  const clear = newId('vaultToken', ctx.now);
  em.create(AcpVaultToken, {
    id: ctx.hash(clear),
    ownerKey: ctx.ownerKey,
    paymentMethod: method,
    brand: scheme,
    last4,
    fundingType: req.payment_method.display_card_funding_type,
    maxAmount: req.allowance.max_amount,
    currency: req.allowance.currency,
    checkoutSessionId: req.allowance.checkout_session_id,
    merchantId: req.allowance.merchant_id,
    expiresAt,
    metadata: req.metadata,
    createdAt: ctx.now,
    usedAt: null,
    usedBySession: null,
  });
  await em.flush();
  const metadata: Record<string, string> = {
    ...req.metadata,
    merchant_id: req.allowance.merchant_id,
    checkout_session_id: req.allowance.checkout_session_id,
  };
  if (ctx.idempotencyKey) metadata.idempotency_key = ctx.idempotencyKey;
  return { id: clear, created: ctx.now.toISOString(), metadata };
}

/** What a token is checked against at complete. */
export interface Spend {
  sessionId: string;
  merchantId: string;
  /** Upper-case ISO 4217, as the spine stores it. */
  currency: string;
  amountMinor: number;
}

const TOKEN_FIELD = 'payload.payment_data.instrument.credential.token';

/**
 * Locks the token (found by its stored hash, `hash`) and checks its allowance for this spend, in this order: known,
 * unused, not expired, merchant, checkout session, currency, max_amount. Returns the token's row, whose `id` is the
 * stored hash (the caller marks it used on success with that id).
 */
export async function checkAllowance(
  em: EntityManager,
  hash: TokenHash,
  presented: string,
  spend: Spend,
  now: Date,
): Promise<AcpVaultTokenRow> {
  const where = { id: { $in: storedKeys(hash, presented) } };
  const token = await em.findOne(AcpVaultToken, where, { lockMode: LockMode.PESSIMISTIC_WRITE });
  const d = (extra: Record<string, unknown> = {}) => ({ field: TOKEN_FIELD, ...extra });
  if (!token) throw new ToolError('delegated_token_invalid', undefined, d());
  if (token.usedAt) throw new ToolError('delegated_token_used', undefined, d({ usedAt: token.usedAt.toISOString() }));
  if (token.expiresAt <= now)
    throw new ToolError('allowance_expired', undefined, d({ expiresAt: token.expiresAt.toISOString() }));
  if (token.merchantId !== spend.merchantId)
    throw new ToolError('allowance_merchant_mismatch', undefined, d({ merchantId: spend.merchantId }));
  if (token.checkoutSessionId !== spend.sessionId) {
    throw new ToolError('allowance_session_mismatch', undefined, d({ checkoutSessionId: spend.sessionId }));
  }
  if (token.currency.toUpperCase() !== spend.currency) {
    throw new ToolError(
      'allowance_currency_mismatch',
      undefined,
      d({ allowanceCurrency: token.currency, currency: spend.currency.toLowerCase() }),
    );
  }
  if (spend.amountMinor > token.maxAmount) {
    throw new ToolError(
      'allowance_amount_exceeded',
      undefined,
      d({ maxAmount: token.maxAmount, amount: spend.amountMinor }),
    );
  }
  return token;
}

/** Spends the token whose stored hash is `tokenId` (one_time): it cannot be used again. */
export async function markUsed(em: EntityManager, tokenId: string, sessionId: string, now: Date): Promise<void> {
  const token = await em.findOneOrFail(AcpVaultToken, { id: tokenId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  token.usedAt ??= now;
  token.usedBySession ??= sessionId;
  await em.flush();
}
