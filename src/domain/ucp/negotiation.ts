/**
 * UCP capability negotiation (overview, "Negotiation Protocol"): the platform's profile, named by the request's
 * UCP-Agent, is fetched and checked; its protocol version must be ours; the capabilities both sides declare are
 * intersected at the highest mutual version, extensions whose parent fell out are pruned until none does. A checkout
 * operation needs the checkout capability in the intersection.
 */
import { z } from 'zod';
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { platformProfileJson } from './profile-cache.ts';
import {
  UCP_CATALOG_LOOKUP,
  UCP_CATALOG_SEARCH,
  UCP_CHECKOUT,
  UCP_IDENTITY_LINKING,
  UCP_ORDER,
  UCP_VERSION,
} from './protocol.ts';

const Version = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const Declaration = z.looseObject({ version: Version, extends: z.union([z.string(), z.array(z.string())]).optional() });
type Declaration = z.infer<typeof Declaration>;
/** A capability registry: name → its declarations (one per version). */
export type Capabilities = Record<string, Declaration[]>;

const PlatformProfile = z.looseObject({
  ucp: z.looseObject({ version: Version, capabilities: z.record(z.string(), z.array(Declaration)).default({}) }),
});

/** What this business offers (the profile's capabilities, by name and version). */
export const BUSINESS_CAPABILITIES: Capabilities = {
  [UCP_CHECKOUT]: [{ version: UCP_VERSION }],
  [UCP_ORDER]: [{ version: UCP_VERSION }],
  [UCP_IDENTITY_LINKING]: [{ version: UCP_VERSION }],
  [UCP_CATALOG_SEARCH]: [{ version: UCP_VERSION }],
  [UCP_CATALOG_LOOKUP]: [{ version: UCP_VERSION }],
};

/** What a negotiation yields: the active capabilities, and the platform's order webhook when order is active. */
export interface Negotiated {
  capabilities: Capabilities;
  orderWebhookUrl?: string;
}

const OrderConfig = z.looseObject({ config: z.looseObject({ webhook_url: z.string().max(2000) }) });

/** The spec's intersection algorithm: mutual names at their highest mutual version, orphaned extensions pruned. */
export function intersect(business: Capabilities, platform: Capabilities): Capabilities {
  const out: Capabilities = {};
  for (const [name, ours] of Object.entries(business)) {
    const theirs = new Set((platform[name] ?? []).map((d) => d.version));
    const mutual = ours.filter((d) => theirs.has(d.version)).sort((a, b) => b.version.localeCompare(a.version));
    if (mutual[0]) out[name] = [mutual[0]];
  }
  for (let pruned = true; pruned;) {
    pruned = false;
    for (const [name, [d]] of Object.entries(out)) {
      const parents = d?.extends === undefined ? [] : [d.extends].flat();
      if (parents.length && !parents.some((p) => out[p])) {
        delete out[name];
        pruned = true;
      }
    }
  }
  return out;
}

const FAILURES = {
  refused: 'invalid_profile_url',
  unreachable: 'profile_unreachable',
  malformed: 'profile_malformed',
} as const;

/** Negotiates with the platform whose profile is at `profileUrl`; returns the capabilities active for checkout. */
export async function negotiateCheckout(ctx: ToolContext, profileUrl: string): Promise<Capabilities> {
  return (await negotiate(ctx, profileUrl)).capabilities;
}

/**
 * Negotiates an operation of the `required` capability (checkout by default); returns the active capabilities and the
 * order webhook URL the platform's order declaration names (when order is active).
 */
export async function negotiate(ctx: ToolContext, profileUrl: string, required = UCP_CHECKOUT): Promise<Negotiated> {
  const policy = { allowLoopback: ctx.services.config.webhookAllowLoopback };
  const fetched = await platformProfileJson(profileUrl, policy, ctx.clock);
  if (!fetched.ok) throw new ToolError(FAILURES[fetched.failure], undefined, { profile: profileUrl });
  const profile = PlatformProfile.safeParse(fetched.json);
  if (!profile.success) throw new ToolError('profile_malformed', undefined, { profile: profileUrl });
  const version = profile.data.ucp.version;
  if (version !== UCP_VERSION) {
    throw new ToolError(
      'version_unsupported',
      `UCP ${version} is not supported; this business implements ${UCP_VERSION}.`,
    );
  }
  const active = intersect(BUSINESS_CAPABILITIES, profile.data.ucp.capabilities);
  if (!active[required]) {
    throw new ToolError(
      'capabilities_incompatible',
      `The platform profile does not declare ${required} ${UCP_VERSION}.`,
    );
  }
  const order = active[UCP_ORDER]
    ? OrderConfig.safeParse(profile.data.ucp.capabilities[UCP_ORDER]?.find((d) => d.version === UCP_VERSION))
    : undefined;
  return { capabilities: active, ...(order?.success ? { orderWebhookUrl: order.data.config.webhook_url } : {}) };
}

/** Negotiates, then runs `work` outside any transaction: checkout create and update open their own (session-hold.ts). */
export async function negotiated<T>(
  ctx: ToolContext,
  profileUrl: string,
  work: (ctx: ToolContext) => Promise<T>,
): Promise<T> {
  await negotiate(ctx, profileUrl, UCP_CHECKOUT);
  return work(ctx);
}

/**
 * Negotiates first, then runs `work` in one short transaction: the platform profile is fetched while no transaction
 * (nor database connection) is held, so the UCP tools that change state run with `transactional: false`.
 */
export async function negotiatedTransaction<T>(
  ctx: ToolContext,
  profileUrl: string,
  work: (tx: ToolContext) => Promise<T>,
  required = UCP_CHECKOUT,
): Promise<T> {
  await negotiate(ctx, profileUrl, required);
  return ctx.services.db.transaction((em) => work({ ...ctx, em }));
}
