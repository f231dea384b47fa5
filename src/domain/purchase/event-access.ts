/**
 * Acting on one event's sales (door scans, voided lists, refunding all its orders): a merchant principal of the event's
 * organization, else 404.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Event, type EventRow } from '../../storage/entities/catalog.ts';
import { ToolError } from '../../kernel/errors.ts';
import type { Principal } from '../../kernel/principal.ts';
import { requireShop } from '../catalog/access.ts';

/** Loads an event of the caller's organization (merchant principals only), or throws `not_found`. */
export async function requireMerchantEvent(
  em: EntityManager,
  principal: Principal,
  eventId: string,
): Promise<EventRow> {
  const event = await em.findOne(Event, { id: eventId });
  if (!event || (principal.kind !== 'api_key' && principal.kind !== 'console_user'))
    throw new ToolError('not_found', `No event ${eventId}.`, { eventId });
  await requireShop(em, principal, event.shopId).catch(() => {
    throw new ToolError('not_found', `No event ${eventId}.`, { eventId });
  });
  return event;
}
