/** The waiting-list entry as every waiting-list tool answers it. */
import { z } from 'zod';
import { WAITING_LIST_STATES } from '../../domain/purchase/waiting-list-view.ts';

export const WaitingListEntryOut = z.object({
  id: z.string().max(100).describe('The entry (wle_…).'),
  merchantId: z.string().max(100),
  eventId: z.string().max(100),
  tierId: z.string().max(100),
  quantity: z.number().int().min(1).max(1000),
  state: z.enum(WAITING_LIST_STATES).describe('offered: confirm `offer.reservationId` before `offer.expiresAt`.'),
  position: z.number().int().min(1).max(10_000_000).optional().describe('Place in line while waiting.'),
  email: z.string().max(254).optional().describe('Merchant callers only.'),
  joinedAt: z.string().max(40),
  offer: z
    .object({
      reservationId: z.string().max(100),
      expiresAt: z.string().max(40),
      totalMinor: z.number().int().min(0),
      currency: z.string().max(3),
    })
    .optional(),
});
