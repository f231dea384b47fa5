/** get_sales_overview: a shop's sales per event (the console's Overview), with live check-in counts. */
import { z } from 'zod';
import { MAX_BUCKETS, OVERVIEW_EVENTS_PAGE, salesOverview } from '../../domain/purchase/sales-overview.ts';
import { Cursor } from '../../kernel/wire.ts';
import { defineTool } from '../../orchestrator/tool.ts';

const Instant = z.iso.datetime({ offset: true }).max(40);
const Time = z.string().describe('RFC 3339 date-time.');
const Count = z.number().int();
const DAY_MS = 86_400_000;

export const getSalesOverview = defineTool({
  name: 'get_sales_overview',
  title: 'Get a shop’s sales overview',
  area: 'ticketing',
  description:
    `Per event of shop \`merchantId\` (or only \`eventId\`; ${OVERVIEW_EVENTS_PAGE} a page, \`cursor\`): each ` +
    'pool’s capacity, sold, held and available places; the revenue (gross, refunded, net); the sales per `bucket` ' +
    `(hour or day, UTC) from \`from\` (default 30 days ago) to \`to\` (default now), at most ${MAX_BUCKETS} ` +
    'buckets, empty ones included; and the check-ins (valid tickets checked in, of all valid): poll it for live door ' +
    'counts.',
  input: z.strictObject({
    merchantId: z.string().min(1).max(100).describe('The shop (shop_…).'),
    eventId: z.string().min(1).max(100).optional().describe('Only this event (evt_…).'),
    from: Instant.optional().describe('RFC 3339; the sales range’s start (default: 30 days before `to`).'),
    to: Instant.optional().describe('RFC 3339; the sales range’s end, exclusive (default: now).'),
    bucket: z.enum(['hour', 'day']).optional().describe('The sales buckets’ size (default day).'),
    cursor: Cursor.optional(),
  }),
  output: z.object({
    merchantId: z.string(),
    from: Time,
    to: Time,
    bucket: z.enum(['hour', 'day']),
    nextCursor: z.string().optional().describe('Present when more events follow: pass it as `cursor`.'),
    events: z.array(
      z.object({
        eventId: z.string(),
        title: z.string(),
        startsAt: Time,
        cancelled: z.boolean(),
        pools: z.array(
          z.object({
            poolId: z.string(),
            title: z.string().nullable(),
            capacity: Count,
            sold: Count,
            held: Count,
            available: Count,
          }),
        ),
        revenue: z.object({ currency: z.string(), grossMinor: Count, refundedMinor: Count, netMinor: Count }),
        sales: z
          .array(z.object({ start: Time, orders: Count, tickets: Count, grossMinor: Count }))
          .describe('One entry per bucket, oldest first; `start` is the bucket’s UTC start.'),
        checkIns: z.object({ checkedIn: Count, valid: Count }),
      }),
    ),
  }),
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/ticketing/sales-overview' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler({ merchantId, eventId, from, to, bucket = 'day', cursor }, { em, principal, clock }) {
    const end = to ? new Date(to) : clock.now();
    const start = from ? new Date(from) : new Date(end.getTime() - 30 * DAY_MS);
    return salesOverview(em, principal, { merchantId, eventId, from: start, to: end, bucket, cursor });
  },
});
