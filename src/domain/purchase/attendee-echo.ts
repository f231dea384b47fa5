/**
 * The attendee answers a reservation holds before it is paid (given at reserve, or at a confirm that then failed to
 * pay), as `get_reservation` echoes them: read from the reservation row already loaded, so no statement is added.
 */
import type { AttendeeRow } from '../../storage/attendee-rows.ts';
import type { ReservationRow } from '../../storage/entities/purchase.ts';

/** `{ attendees }` when the hold carries answers, else nothing (the field is absent). */
export function storedAttendeesField(r: Pick<ReservationRow, 'attendees'>): { attendees?: AttendeeRow[] } {
  return r.attendees?.length ? { attendees: r.attendees } : {};
}
