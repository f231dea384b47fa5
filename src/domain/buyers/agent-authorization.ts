/**
 * Authorizing an agent in one step (the MCP OAuth authorize page, docs/oauth.md): the buyer names the agent, picks a
 * saved card of the session's shop or brings a just-entered one (a succeeded card setup), and sets the limits; ONE
 * emailed code (purpose `authorize_agent`) confirms it all. The e-mail says what the code authorizes (agent, shop,
 * card, limits), and the code is bound to exactly those details (their digest is stored with the challenge), so it
 * cannot confirm anything else. Then one transaction spends the code, saves the new card (its spending cap is the
 * per-purchase cap), creates the agent (its `tag_…` token issued once, as create_agent) and grants the permission.
 */
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ToolContext } from '../context.ts';
import { canonicalJson } from '../../kernel/canonical-json.ts';
import { ToolError } from '../../kernel/errors.ts';
import { formatMoney } from '../../mail/templates.ts';
import { Instrument, type InstrumentRow, type PermissionRow } from '../../storage/entities/buyer-authority.ts';
import type { AgentRow } from '../../storage/entities/buyer.ts';
import type { ShopRow } from '../../storage/entities/catalog.ts';
import { refuseBuyerPastCap } from './buyer-caps.ts';
import { chargeableInstrument } from './agent-purchases.ts';
import { insertAgent } from './agents.ts';
import { CLOSED_MESSAGE, isClosed, requireOwnSetup, sessionShop } from './card-setups.ts';
import { insertInstrument } from './instruments.ts';
import { refusePartnerOrigin } from './origin-guard.ts';
import { checkLimits, insertPermission, type PermissionLimits } from './permissions.ts';
import { buyerOf } from './sessions.ts';
import { requestCode, spendConsent, verifyCode, type CodeProof, type CodePurpose } from './verification.ts';

/** What the buyer authorizes: the agent's name, the card (a saved one, or a succeeded setup to save), the limits. */
export interface AgentAuthorization extends PermissionLimits {
  name: string;
  instrumentId?: string | undefined;
  setupId?: string | undefined;
}

const PURPOSE: CodePurpose = 'authorize_agent';

/** Exactly one card: a saved card (`instrumentId`) or a succeeded setup (`setupId`). */
function cardOf(a: AgentAuthorization): { instrumentId: string } | { setupId: string } {
  if (a.instrumentId && !a.setupId) return { instrumentId: a.instrumentId };
  if (a.setupId && !a.instrumentId) return { setupId: a.setupId };
  throw new ToolError(
    'invalid_input',
    'Give exactly one of instrumentId (a saved card) and setupId (a card just entered in the card form).',
    { field: 'instrumentId' },
  );
}

/** The digest a code is bound to: the shop and every detail the buyer confirms (the end date normalised). */
function digestOf(shopId: string, a: AgentAuthorization, expiresAt: Date): string {
  const details = {
    shopId,
    name: a.name,
    ...cardOf(a),
    perPurchaseCapMinor: a.perPurchaseCapMinor,
    allowanceMinor: a.allowanceMinor,
    windowHours: a.windowHours,
    expiresAt: expiresAt.toISOString(),
  };
  return createHash('sha256').update(canonicalJson(details)).digest('hex');
}

/**
 * The card the authorization charges, checked without saving anything: a chargeable saved card, or a succeeded open
 * setup.
 */
async function describeCard(
  em: EntityManager,
  ctx: ToolContext,
  shop: ShopRow,
  a: AgentAuthorization,
): Promise<{ scheme: string; last4: string }> {
  const card = cardOf(a);
  if ('instrumentId' in card) {
    const own = await em.findOne(Instrument, { id: card.instrumentId, buyerId: buyerOf(ctx).buyerId, deletedAt: null });
    if (!own) throw new ToolError('instrument_not_found', undefined, { instrumentId: card.instrumentId });
    return chargeableInstrument(em, own.id, shop);
  }
  const setup = await requireOwnSetup(em, ctx, card.setupId);
  if (setup.instrumentId) return em.findOneOrFail(Instrument, { id: setup.instrumentId });
  if (isClosed(setup, ctx.clock.now()))
    throw new ToolError('card_setup_not_ready', CLOSED_MESSAGE, { setupId: setup.id, status: setup.status });
  if (setup.status !== 'succeeded')
    throw new ToolError('card_setup_not_ready', undefined, { setupId: setup.id, status: setup.status });
  return { scheme: setup.scheme!, last4: setup.last4! };
}

/** How long a window reads in `lang`: whole days as days, else hours. */
function windowText(lang: string, hours: number): string {
  const [value, unit] = hours % 24 === 0 ? [hours / 24, 'day'] : [hours, 'hour'];
  return new Intl.NumberFormat(lang, { style: 'unit', unit, unitDisplay: 'long' }).format(value);
}

/**
 * E-mails the one code for `a` after checking everything that can be checked before it (the session's shop, the
 * limits, the card), with an e-mail that names what it authorizes. Never call inside a transaction.
 */
export async function requestAuthorizationCode(
  ctx: ToolContext,
  a: AgentAuthorization,
): Promise<{ challengeId: string; expiresAt: string }> {
  refusePartnerOrigin(ctx);
  const principal = buyerOf(ctx);
  if (principal.mode !== 'full')
    throw new ToolError('forbidden', 'A bounded buyer session cannot create or widen spending authority.', {
      sessionMode: principal.mode,
    });
  if (!principal.merchantId) throw new ToolError('session_shop_required');
  const now = ctx.clock.now();
  const expiresAt = checkLimits(a, now);
  const { shop, card } = await ctx.services.db.transaction(async (em) => {
    const shop = await sessionShop(em, ctx);
    return { shop, card: await describeCard(em, ctx, shop, a) };
  });
  const scheme = card.scheme.charAt(0).toUpperCase() + card.scheme.slice(1);
  return requestCode(ctx, PURPOSE, {
    digest: digestOf(shop.id, a, expiresAt),
    action: (lang) => ({
      agent: a.name,
      shop: shop.name,
      perPurchase: formatMoney(lang, a.perPurchaseCapMinor, shop.currency),
      allowance: formatMoney(lang, a.allowanceMinor, shop.currency),
      window: windowText(lang, a.windowHours),
      until: new Intl.DateTimeFormat(lang, { dateStyle: 'long', timeZone: 'UTC' }).format(expiresAt),
      card: `${scheme} •••• ${card.last4}`,
    }),
  });
}

/**
 * Creates the agent and its permission in the session's shop, charging the saved card or the card just entered
 * (saved here), under the one code e-mailed for exactly these details; all in one transaction with the code's use.
 */
export async function authorizeAgent(
  ctx: ToolContext,
  input: AgentAuthorization & CodeProof,
): Promise<{
  agent: AgentRow;
  token: string | null;
  permission: PermissionRow;
  instrument: InstrumentRow;
  cardSaved: boolean;
}> {
  const principal = buyerOf(ctx);
  if (!principal.merchantId) throw new ToolError('session_shop_required');
  const now = ctx.clock.now();
  const expiresAt = checkLimits(input, now);
  const card = cardOf(input);
  const consent = await verifyCode(ctx, PURPOSE, input, digestOf(principal.merchantId, input, expiresAt));
  return ctx.services.db.transaction(async (em) => {
    await spendConsent(em, consent, now);
    const shop = await sessionShop(em, ctx);
    let instrument: InstrumentRow;
    let cardSaved = false;
    if ('setupId' in card) {
      const setup = await requireOwnSetup(em, ctx, card.setupId);
      if (setup.instrumentId) instrument = await em.findOneOrFail(Instrument, { id: setup.instrumentId });
      else {
        if (isClosed(setup, now) || setup.status !== 'succeeded')
          throw new ToolError('card_setup_not_ready', isClosed(setup, now) ? CLOSED_MESSAGE : undefined, {
            setupId: setup.id,
            status: setup.status,
          });
        instrument = await insertInstrument(em, setup, input.perPurchaseCapMinor, now);
        cardSaved = true;
        await em.flush();
      }
    } else {
      const own = await em.findOne(Instrument, { id: card.instrumentId, buyerId: principal.buyerId, deletedAt: null });
      if (!own) throw new ToolError('instrument_not_found', undefined, { instrumentId: card.instrumentId });
      instrument = own;
    }
    await chargeableInstrument(em, instrument.id, shop);
    await refuseBuyerPastCap(em, principal.buyerId, 'agents', now);
    await refuseBuyerPastCap(em, principal.buyerId, 'permissions', now);
    const { agent, token } = insertAgent(em, principal.buyerId, { name: input.name }, now);
    const permission = insertPermission(em, {
      buyerId: principal.buyerId,
      agentId: agent.id,
      shop,
      instrumentId: instrument.id,
      limits: input,
      expiresAt,
      attested: false,
      now,
    });
    await em.flush();
    return { agent, token, permission, instrument, cardSaved };
  });
}

/**
 * `request_verification_code`: the `authorize_agent` code needs the details it authorizes (`authorization`); every
 * other purpose takes none.
 */
export async function requestCodeFor(
  ctx: ToolContext,
  purpose: CodePurpose,
  authorization?: AgentAuthorization,
): Promise<{ challengeId: string; expiresAt: string }> {
  if (purpose === PURPOSE) {
    if (!authorization)
      throw new ToolError(
        'invalid_input',
        'A code for authorize_agent names what it authorizes: send `authorization`.',
        { field: 'authorization' },
      );
    return requestAuthorizationCode(ctx, authorization);
  }
  if (authorization)
    throw new ToolError('invalid_input', '`authorization` is only for the purpose authorize_agent.', {
      field: 'authorization',
    });
  return requestCode(ctx, purpose);
}
