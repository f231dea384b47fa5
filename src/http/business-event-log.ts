/** The business-event log binding (`BusinessEvents`, src/kernel/business-events.ts): one `info` line per event. */
import type { Logger } from 'pino';
import type { BusinessEvent, BusinessEvents } from '../kernel/business-events.ts';

/** Writes each event as one JSON line, `msg: "business event"`, with the event's own fields (ids and amounts). */
export function businessEventLog(log: Logger): BusinessEvents {
  const events = log.child({ component: 'business' });
  return { record: (event: BusinessEvent) => events.info(event, 'business event') };
}
