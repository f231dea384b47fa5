/** The signed-mandate artefact: its schema (docs/signed-mandates.md) and the recurrence periods its jti is spent in. */
import { z } from 'zod';
import { Currency, DateTime } from '../kernel/wire.ts';

export const MANDATE_RECURRENCES = ['once', 'daily', 'weekly', 'monthly', 'yearly'] as const;
export type Recurrence = (typeof MANDATE_RECURRENCES)[number];

/** A trust-list network id, as the artefact's `network` names it. */
export const NETWORK_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** The longest text member (mandateId, issuer, credentialRef), jti and network id an artefact may carry. */
export const MANDATE_TEXT_MAX = 200;
export const MANDATE_JTI_MAX = 128;
export const NETWORK_ID_MAX = 64;

const Text = z.string().min(1).max(MANDATE_TEXT_MAX);
const looksLikeCardNumber = (s: string) => /^\d{12,19}$/.test(s.replace(/[\s-]/g, ''));

/**
 * The mandate artefact, exactly as the network signs it. Unknown members are refused: a constraint
 * this server does not understand must never be silently ignored.
 */
export const MandateArtefact = z
  .strictObject({
    mandateId: Text.describe('The issuer’s identifier for this mandate.'),
    network: z.string().regex(NETWORK_ID).describe('The signing network, an `id` in the trust list.'),
    issuer: Text.describe('Who issued the mandate (the card issuer or wallet), as the network names it.'),
    credentialRef: Text.refine(
      (s) => !looksLikeCardNumber(s),
      'must be a credential reference (a network token id), never a card number',
    ).describe(
      'Reference to the payment credential the mandate authorizes (e.g. a network token id); never a card number.',
    ),
    merchantScope: z.strictObject({
      merchantIds: z
        .array(z.string().min(1).max(100))
        .min(1)
        .max(100)
        .describe('Tessera shop ids the mandate may be spent at.'),
    }),
    amountLimit: z.strictObject({
      amountMinor: z
        .number()
        .int()
        .min(1)
        .max(100_000_000)
        .describe('Most that one purchase (per period) may cost, in minor units.'),
      currency: Currency,
    }),
    issuedAt: DateTime,
    notBefore: DateTime.optional().describe('Start of validity; defaults to issuedAt.'),
    expiresAt: DateTime,
    recurrence: z
      .enum(MANDATE_RECURRENCES)
      .describe('once: one purchase; otherwise one purchase per UTC calendar period.'),
    jti: z
      .string()
      .regex(/^[A-Za-z0-9._~:-]{16,128}$/, 'must be 16 to 128 URL-safe characters')
      .describe('Unique id of this artefact.'),
  })
  .refine((m) => new Date(m.expiresAt) > new Date(m.notBefore ?? m.issuedAt), {
    message: 'expiresAt must be after notBefore (or issuedAt)',
    path: ['expiresAt'],
  });
export type Mandate = z.infer<typeof MandateArtefact>;

/** The start of a mandate's validity. */
export function validFrom(m: Mandate): Date {
  return new Date(m.notBefore ?? m.issuedAt);
}

function isoWeek(d: Date): string {
  const t = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  t.setUTCDate(t.getUTCDate() + 4 - (t.getUTCDay() || 7));
  const week = Math.ceil(((t.getTime() - Date.UTC(t.getUTCFullYear(), 0, 1)) / 86_400_000 + 1) / 7);
  return `${t.getUTCFullYear()}-W${String(week).padStart(2, '0')}`;
}

/**
 * The period a use at `at` falls in: `once` for a one-off mandate, else the UTC calendar day
 * (`2026-11-22`), ISO week (`2026-W47`), month (`2026-11`) or year (`2026`). A jti is spent once per period.
 */
export function mandatePeriod(recurrence: Recurrence, at: Date): string {
  const iso = at.toISOString();
  switch (recurrence) {
    case 'once':
      return 'once';
    case 'daily':
      return iso.slice(0, 10);
    case 'weekly':
      return isoWeek(at);
    case 'monthly':
      return iso.slice(0, 7);
    case 'yearly':
      return iso.slice(0, 4);
  }
}
