/** A buyer removes a saved card: it is no longer listed nor charged, and the permissions charging it end with it. */
import { Permission } from '../../storage/entities/buyer-authority.ts';
import type { ToolContext } from '../context.ts';
import { requireOwnInstrument } from './instruments.ts';
import { revoke } from './permissions.ts';

/**
 * Removes a saved card (narrowing authority: no code, bounded sessions too, like lowering its cap). The live
 * permissions that charge it are revoked (`card_removed`), so no agent keeps a permission it cannot use. The row stays
 * (soft delete) for the permissions and spends that name it; another buyer's card answers `instrument_not_found`.
 */
export async function removeCard(ctx: ToolContext, id: string): Promise<{ removed: true; revokedPermissions: number }> {
  const instrument = await requireOwnInstrument(ctx.em, ctx, id);
  const now = ctx.clock.now();
  instrument.deletedAt = now;
  const live = await ctx.em.find(Permission, { instrumentId: instrument.id, revokedAt: null });
  for (const p of live) revoke(p, now, 'card_removed', 'buyer');
  await ctx.em.flush();
  return { removed: true, revokedPermissions: live.length };
}
