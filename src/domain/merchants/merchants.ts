/** Merchant onboarding: organizations, owners, shops and API keys (shown once, stored hashed). */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey } from '../../storage/entities/api-key.ts';
import { Shop } from '../../storage/entities/catalog.ts';
import { Organization } from '../../storage/entities/organization.ts';
import { Membership, User } from '../../storage/entities/user.ts';
import { newId, randomToken } from '../../storage/ids.ts';
import { API_KEY_PREFIX, hashToken } from '../../kernel/tokens.ts';
import type { Scope } from '../../kernel/principal.ts';
import { lockCaps, MAX_ORGANIZATIONS_PER_USER, refuseAtLimit } from '../limits.ts';

export interface IssuedKey {
  id: string;
  /** The secret token: returned once, never stored. */
  token: string;
  scopes: Scope[];
}

/** Creates an API key for an organization; only the hash and a short prefix are stored. */
export function issueApiKey(
  em: EntityManager,
  args: { organizationId: string; name: string; scopes: readonly Scope[]; createdByUserId?: string | null; now: Date },
): IssuedKey {
  const token = `${API_KEY_PREFIX}${randomToken(24)}`;
  const id = newId('apiKey', args.now);
  em.create(ApiKey, {
    id,
    organizationId: args.organizationId,
    name: args.name,
    tokenHash: hashToken(token),
    tokenPrefix: token.slice(0, 10),
    scopes: [...new Set(args.scopes)],
    createdByUserId: args.createdByUserId ?? null,
    createdAt: args.now,
    lastUsedAt: null,
    revokedAt: null,
  });
  return { id, token, scopes: [...new Set(args.scopes)] };
}

export interface BootstrapInput {
  organization: string;
  email: string;
  shop: string;
  currency?: string;
  scopes: readonly Scope[];
  discoverable?: boolean;
}

export interface BootstrapResult {
  organizationId: string;
  ownerId: string;
  shopId: string;
  apiKey: string;
}

/** The longest organization or shop name (create_shop's bound): the CLI's `bootstrap` holds names to it too. */
export const NAME_MAX = 200;
/** The longest e-mail address (RFC 5321's path limit), as every e-mail input accepts. */
export const EMAIL_MAX = 320;

/** Organization + owner + shop + API key in one transaction (the CLI's `bootstrap` and the demo seed). */
export async function bootstrapOrganization(
  em: EntityManager,
  input: BootstrapInput,
  now: Date,
): Promise<BootstrapResult> {
  const organizationId = newId('organization', now);
  em.create(Organization, {
    id: organizationId,
    name: input.organization,
    attestationEnabled: false,
    attestCeilingMinor: null,
    attestWindowHours: null,
    createdAt: now,
  });
  const email = input.email.trim().toLowerCase();
  let owner = await em.findOne(User, { email });
  if (!owner) {
    owner = em.create(User, { id: newId('user', now), email, name: null, isStaff: false, createdAt: now });
  } else {
    await lockCaps(em, owner.id);
    const organizations = await em.count(Membership, { userId: owner.id });
    refuseAtLimit(organizations, MAX_ORGANIZATIONS_PER_USER, 'organizations_per_user');
  }
  em.create(Membership, { userId: owner.id, organizationId, role: 'owner', invitedBy: null, createdAt: now });
  const shopId = newId('shop', now);
  em.create(Shop, {
    id: shopId,
    organizationId,
    name: input.shop,
    currency: input.currency ?? 'EUR',
    discoverable: input.discoverable ?? false,
    embedOrigins: [],
    holdMinutes: 10,
    feePerTicketMinor: 0,
    paymentProvider: 'sandbox',
    createdAt: now,
    deletedAt: null,
  });
  const key = issueApiKey(em, {
    organizationId,
    name: 'bootstrap',
    scopes: input.scopes,
    createdByUserId: owner.id,
    now,
  });
  await em.flush();
  return { organizationId, ownerId: owner.id, shopId, apiKey: key.token };
}
