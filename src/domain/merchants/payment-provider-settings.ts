/**
 * A shop's second payment provider (spec §9): its settings can be configured — validated, the public parts stored
 * in clear and the secret ones sealed at rest — but it is not switched on in the sandbox. Payments keep going
 * through the shop's linked provider (the sandbox), which stays the one to test with; linking the second one is
 * refused with `provider_not_enabled`.
 */
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { principalKey } from '../../kernel/principal.ts';
import { iso } from '../../kernel/wire.ts';
import { sql } from '../../storage/database.ts';
import { requireShop } from '../catalog/access.ts';

type Ctx = Pick<ToolContext, 'em' | 'principal' | 'clock' | 'services'>;

export interface StripeSettings {
  publishableKey: string;
  secretKey: string;
  webhookSecret: string;
  accountId?: string | undefined;
}

export const NOT_SWITCHED_ON = 'configured, not switched on in the sandbox';

function refuse(field: string, message: string): ToolError {
  return new ToolError('invalid_provider_settings', message, { field });
}

/** Format rules of the Stripe credentials; both keys must be of the same mode (test or live). */
export function checkStripeSettings(s: StripeSettings): 'test' | 'live' {
  const pk = /^pk_(test|live)_[A-Za-z0-9]{16,247}$/.exec(s.publishableKey);
  if (!pk) throw refuse('publishableKey', 'publishableKey must be a Stripe publishable key (pk_test_… or pk_live_…).');
  const sk = /^(sk|rk)_(test|live)_[A-Za-z0-9]{16,247}$/.exec(s.secretKey);
  if (!sk)
    throw refuse('secretKey', 'secretKey must be a Stripe secret or restricted key (sk_test_…, rk_test_…, or live).');
  if (pk[1] !== sk[2])
    throw refuse(
      'secretKey',
      `secretKey is a ${sk[2]} key but publishableKey is a ${pk[1]} key; use keys of the same mode.`,
    );
  if (!/^whsec_[A-Za-z0-9+/=]{16,}$/.test(s.webhookSecret))
    throw refuse('webhookSecret', 'webhookSecret must be a Stripe webhook signing secret (whsec_…).');
  if (s.accountId !== undefined && !/^acct_[A-Za-z0-9]{8,}$/.test(s.accountId))
    throw refuse('accountId', 'accountId must be a Stripe account id (acct_…).');
  return pk[1] as 'test' | 'live';
}

interface Row {
  provider: string;
  settings: { mode: string; publishableKey: string; secretKeyLast4: string; accountId: string | null };
  configured_at: Date;
  updated_at: Date;
}

function view(row: Row, linked: unknown) {
  return {
    provider: row.provider,
    status: 'configured_not_enabled' as const,
    statusText: NOT_SWITCHED_ON,
    linked: linked === row.provider,
    mode: row.settings.mode,
    publishableKey: row.settings.publishableKey,
    secretKey: `…${row.settings.secretKeyLast4}`,
    webhookSecret: 'set' as const,
    accountId: row.settings.accountId,
    configuredAt: iso(row.configured_at),
    updatedAt: iso(row.updated_at),
  };
}

/** Stores (or replaces) the shop's Stripe settings; secrets are sealed, bound to the shop and provider. */
export async function configureStripe(ctx: Ctx, shopId: string, input: StripeSettings) {
  const shop = await requireShop(ctx.em, ctx.principal, shopId);
  const mode = checkStripeSettings(input);
  const now = ctx.clock.now();
  const sealed = ctx.services.payments.credentials.seal(
    JSON.stringify({ secretKey: input.secretKey, webhookSecret: input.webhookSecret }),
    `${shop.id}:stripe`,
  );
  const settings = {
    mode,
    publishableKey: input.publishableKey,
    secretKeyLast4: input.secretKey.slice(-4),
    accountId: input.accountId ?? null,
  };
  const [row] = await sql<Row>(
    ctx.em,
    `insert into payment_provider_settings (shop_id, provider, settings, secrets_sealed, configured_by, configured_at, updated_at)
     values (?, 'stripe', ?::jsonb, ?, ?, ?, ?)
     on conflict (shop_id, provider) do update set settings = excluded.settings, secrets_sealed = excluded.secrets_sealed,
       configured_by = excluded.configured_by, updated_at = excluded.updated_at
     returning provider, settings, configured_at, updated_at`,
    [shop.id, JSON.stringify(settings), sealed, principalKey(ctx.principal), now, now],
  );
  return view(row!, String(shop.paymentProvider));
}

/** The shop's providers: the sandbox (linked, in use) and each other one, configured or not. */
export async function listProviders(ctx: Ctx, shopId: string) {
  const shop = await requireShop(ctx.em, ctx.principal, shopId);
  const rows = await sql<Row>(
    ctx.em,
    'select provider, settings, configured_at, updated_at from payment_provider_settings where shop_id = ? order by provider',
    [shop.id],
  );
  const stripe = rows.find((r) => r.provider === 'stripe');
  return {
    linked: String(shop.paymentProvider),
    providers: [
      {
        provider: 'sandbox',
        status: 'active' as const,
        statusText: 'in use: the provider to test with',
        linked: shop.paymentProvider === 'sandbox',
      },
      stripe
        ? view(stripe, shop.paymentProvider)
        : { provider: 'stripe', status: 'not_configured' as const, statusText: 'not configured', linked: false },
    ],
  };
}

/** The sealed secrets of a configured provider, opened (for the day it is switched on); undefined when absent. */
export async function openProviderSecrets(
  ctx: Ctx,
  shopId: string,
  provider: string,
): Promise<Record<string, string> | undefined> {
  const [row] = await sql<{ secrets_sealed: string }>(
    ctx.em,
    'select secrets_sealed from payment_provider_settings where shop_id = ? and provider = ?',
    [shopId, provider],
  );
  const opened = row ? ctx.services.payments.credentials.open(row.secrets_sealed, `${shopId}:${provider}`) : undefined;
  return opened ? (JSON.parse(opened) as Record<string, string>) : undefined;
}
