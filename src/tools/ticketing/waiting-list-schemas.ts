/** The waiting-list entry as every waiting-list tool answers it. */
import { z } from 'zod';
import { WAITING_LIST_STATES } from '../../domain/purchase/waiting-list-view.ts';

export const WaitingListEntryOut = z.object({
  id: z.string().max(100).describe('The entry (wle_…).'),
  merchantId: z.string().max(100),
  eventId: z.string().max(100),
  tierId: z.string().max(100),
  quantity: z.number().int().min(1).max(1000),
  state: z
    .enum(WAITING_LIST_STATES)
    .describe(
      'waiting; offered (places held for you: confirm `offer.reservationId` before `offer.expiresAt`); purchased; ' +
        'expired or declined (the offer passed on); left; removed (by the merchant).',
    ),
  position: z.number().int().min(1).max(10_000_000).optional().describe('Place in the tier’s line while waiting.'),
  email: z.string().max(254).optional().describe('The person’s e-mail (merchant callers only).'),
  joinedAt: z.string().max(40),
  offer: z
    .object({
      reservationId: z.string().max(100).describe('The hold for you (rsv_…): `confirm` it to buy.'),
      expiresAt: z.string().max(40).describe('When the hold ends and the offer passes to the next in line.'),
      totalMinor: z.number().int().min(0),
      currency: z.string().max(3),
    })
    .optional(),
});
