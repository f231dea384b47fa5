/** The rule for an event's time zone: an IANA name this runtime knows, stored in its canonical spelling. */
import { canonicalTimeZone } from '../../kernel/event-time.ts';
import { ToolError } from '../../kernel/errors.ts';

/** `name` canonicalised (`europe/budapest` → `Europe/Budapest`), or `unknown_time_zone` when it is not IANA's. */
export function requireTimeZone(name: string): string {
  const zone = canonicalTimeZone(name);
  if (!zone) throw new ToolError('unknown_time_zone', undefined, { field: 'timeZone' });
  return zone;
}
