// The one rule for showing an event's time: in the event's IANA time zone, naming it ("Sat, 5 Dec 2026, 20:00 CET").
// The same Intl options as src/kernel/event-time.ts uses for the e-mails, so a page and a mail say the same thing.
import { lang } from './i18n.js';

export const EVENT_TIME_OPTIONS = Object.freeze({
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZoneName: 'short',
});

/** An RFC 3339 instant in the page's language, in `timeZone` (UTC when absent), with the zone named. */
export const formatEventTime = (iso, timeZone = 'UTC') =>
  new Intl.DateTimeFormat(lang(), { ...EVENT_TIME_OPTIONS, timeZone }).format(new Date(iso));
