/** An event's time zone: the IANA name check, and the one rule for showing an event's time to buyers. */
import { z } from 'zod';

/**
 * The Intl options an event time is shown with, in the event's time zone and naming it ("Sat, 5 Dec 2026, 20:00
 * CET"). The buyer pages use the same options (src/buyer-pages/assets/event-time.js), so mails and pages agree.
 */
export const EVENT_TIME_OPTIONS: Readonly<Intl.DateTimeFormatOptions> = Object.freeze({
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZoneName: 'short',
});

/** `at` in `lang`, in `timeZone` (an IANA name; UTC when absent), with the zone named. */
export function formatEventTime(lang: string, at: Date, timeZone = 'UTC'): string {
  return new Intl.DateTimeFormat(lang, { ...EVENT_TIME_OPTIONS, timeZone }).format(at);
}

/**
 * The canonical spelling of an IANA time zone name (`europe/budapest` → `Europe/Budapest`), or null when this
 * runtime's Intl does not know it. Offsets (`+01:00`) and abbreviations (`CET`) are not IANA names and answer null.
 */
export function canonicalTimeZone(name: string): string | null {
  if (!/^([A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)+|utc)$/i.test(name)) return null;
  try {
    const resolved = new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
    return resolved === 'UTC' || Intl.supportedValuesOf('timeZone').includes(resolved) ? resolved : null;
  } catch {
    return null;
  }
}

/** An event's time zone on the wire: an IANA name. */
export const TimeZoneIn = z
  .string()
  .min(1)
  .max(64)
  .describe(
    'The IANA time zone the event takes place in (e.g. Europe/Budapest); buyers see its times there. Default UTC.',
  );
