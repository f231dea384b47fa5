/**
 * The consent view's unfinished setups (spec §3, §8): closing the view keeps the buyer's setup as a draft for one
 * day, per buyer and shop; opening the view again resumes at the same step; after a day the draft is gone. A draft
 * holds only what the view needs to resume (the step, the chosen agent and card, the limits typed so far), never a
 * session, a code or a card number. Granting the permission ends the draft (`endDraft`, called by grantPermission).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ToolContext } from '../context.ts';
import { ToolError } from '../../kernel/errors.ts';
import { sql } from '../../storage/database.ts';
import { buyerOf } from './sessions.ts';

/** How long a draft is kept after it was last saved. */
export const DRAFT_TTL_MS = 24 * 60 * 60 * 1000;

/** The steps of the consent view a draft can resume at (verification of the session always comes first). */
export const DRAFT_STEPS = ['agent', 'card', 'limits'] as const;
export type DraftStep = (typeof DRAFT_STEPS)[number];

/** The limits typed so far, as the grant will send them (each optional: the buyer may not have typed it yet). */
export interface DraftLimits {
  perPurchaseCapMinor?: number | undefined;
  allowanceMinor?: number | undefined;
  windowHours?: number | undefined;
  expiresAt?: string | undefined;
}

export interface DraftInput {
  step: DraftStep;
  agentId?: string | null | undefined;
  instrumentId?: string | null | undefined;
  limits?: DraftLimits | undefined;
}

export interface DraftOut {
  merchantId: string;
  step: DraftStep;
  agentId: string | null;
  instrumentId: string | null;
  limits: DraftLimits;
  updatedAt: string;
  expiresAt: string;
}

interface DraftRow {
  merchant_id: string;
  step: DraftStep;
  data: { agentId?: string | null; instrumentId?: string | null; limits?: DraftLimits };
  updated_at: Date;
  expires_at: Date;
}

/** The buyer and shop of the calling session; a session for no shop has no consent view (`session_shop_required`). */
function owner(ctx: Pick<ToolContext, 'principal'>): { buyerId: string; shopId: string } {
  const p = buyerOf(ctx);
  if (!p.merchantId) throw new ToolError('session_shop_required');
  return { buyerId: p.buyerId, shopId: p.merchantId };
}

function out(r: DraftRow): DraftOut {
  const limits: DraftLimits = {};
  for (const k of ['perPurchaseCapMinor', 'allowanceMinor', 'windowHours', 'expiresAt'] as const) {
    const v = r.data.limits?.[k];
    if (v !== undefined) (limits as Record<string, unknown>)[k] = v;
  }
  return {
    merchantId: r.merchant_id,
    step: r.step,
    agentId: r.data.agentId ?? null,
    instrumentId: r.data.instrumentId ?? null,
    limits,
    updatedAt: new Date(r.updated_at).toISOString(),
    expiresAt: new Date(r.expires_at).toISOString(),
  };
}

/** The caller's live draft for its session's shop, or null (none, or older than a day). */
export async function readDraft(ctx: ToolContext): Promise<DraftOut | null> {
  const { buyerId, shopId } = owner(ctx);
  const rows = await sql<DraftRow>(
    ctx.em,
    'select merchant_id, step, data, updated_at, expires_at from consent_drafts where buyer_id = ? and merchant_id = ? and expires_at > ?',
    [buyerId, shopId, ctx.clock.now()],
  );
  return rows[0] ? out(rows[0]) : null;
}

/**
 * Saves (creates or replaces) the caller's draft, kept one day from now. The agent and the card it names must be
 * the buyer's own (the card saved for this shop); anything else answers 404 like a missing object. Drafts older than
 * a day are deleted on the way.
 */
export async function saveDraft(ctx: ToolContext, input: DraftInput): Promise<DraftOut> {
  const { buyerId, shopId } = owner(ctx);
  const { em } = ctx;
  const now = ctx.clock.now();
  if (input.agentId) {
    const [agent] = await sql(em, `select 1 from agents where id = ? and buyer_id = ? and status <> 'deleted'`, [
      input.agentId,
      buyerId,
    ]);
    if (!agent) throw new ToolError('not_found', `No agent ${input.agentId}.`, { agentId: input.agentId });
  }
  if (input.instrumentId) {
    const [card] = await sql(
      em,
      'select 1 from instruments where id = ? and buyer_id = ? and shop_id = ? and deleted_at is null',
      [input.instrumentId, buyerId, shopId],
    );
    if (!card) throw new ToolError('instrument_not_found', undefined, { instrumentId: input.instrumentId });
  }
  const data = { agentId: input.agentId ?? null, instrumentId: input.instrumentId ?? null, limits: input.limits ?? {} };
  const expiresAt = new Date(now.getTime() + DRAFT_TTL_MS);
  await sql(em, 'delete from consent_drafts where expires_at <= ?', [now]);
  const rows = await sql<DraftRow>(
    em,
    `insert into consent_drafts (buyer_id, merchant_id, step, data, expires_at, updated_at) values (?, ?, ?, ?::jsonb, ?, ?)
     on conflict (buyer_id, merchant_id) do update set step = excluded.step, data = excluded.data, expires_at = excluded.expires_at, updated_at = excluded.updated_at
     returning merchant_id, step, data, updated_at, expires_at`,
    [buyerId, shopId, input.step, JSON.stringify(data), expiresAt, now],
  );
  return out(rows[0]!);
}

/** Discards the caller's draft (the buyer confirmed "Discard this setup?"); true when there was a live one. */
export async function discardDraft(ctx: ToolContext): Promise<boolean> {
  const { buyerId, shopId } = owner(ctx);
  const gone = await sql(
    ctx.em,
    'delete from consent_drafts where buyer_id = ? and merchant_id = ? returning expires_at > ? as live',
    [buyerId, shopId, ctx.clock.now()],
  );
  return gone.some((r) => (r as { live: boolean }).live);
}

/** Ends the buyer's draft for a shop once the setup is done (the permission granted), in the grant's transaction. */
export async function endDraft(em: EntityManager, buyerId: string, shopId: string): Promise<void> {
  await sql(em, 'delete from consent_drafts where buyer_id = ? and merchant_id = ?', [buyerId, shopId]);
}
