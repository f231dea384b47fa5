/** reserve: turns a quote into a hold on its places, with an expiry. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { AGENT_PURCHASE_ERRORS } from '../../domain/buyers/agent-purchases.ts';
import { reserveAdmission, reserveInBatch } from '../../domain/purchase/reserve-batcher.ts';
import { RESTRICTION_ERRORS } from '../../domain/catalog/restrictions.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { PurchaseOut } from './schemas.ts';
import { AttendeesIn } from './attendee-schemas.ts';
import { reserveWithAttendees } from '../../domain/purchase/attendees.ts';

export const reserve = defineTool({
  name: 'reserve',
  title: 'Reserve places',
  area: 'ticketing',
  description:
    'Holds the places of a quote at the quoted price until `reservation.expiresAt`. Safe to retry: the same quote ' +
    'again returns the same reservation. `quote_already_used`: someone else reserved it; `quote_expired`: quote ' +
    'again; `sold_out`: the places are gone. `rate_limited` (retryAfter): the pool is busy, retry after that many ' +
    'seconds. Next: `confirm`.',
  input: z.strictObject({ quoteId: IdRef.describe('The quote (quo_…) from `quote`.'), ...AttendeesIn }),
  output: PurchaseOut,
  errors: [
    ...AGENT_PURCHASE_ERRORS,
    'not_found',
    'quote_already_used',
    'quote_expired',
    'invalid_answer',
    ...RESTRICTION_ERRORS,
    'insufficient_scope',
    'rate_limited',
    'discount_code_invalid',
  ],
  auth: { principals: ['api_key', 'buyer', 'agent'], scopes: ['merchant:write'] },
  http: { method: 'POST', path: '/v1/ticketing/reservations', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  audited: false, // the purchase spine: its record is the quote, reservation or order itself
  idempotency: 'required',
  // Concurrent reserves share a transaction (the hot-pool batcher); each keeps its own outcome and replay.
  transactional: 'shared',
  admission: reserveAdmission,
  // The reserve rule, its natural idempotency (the caller's own hold again) and the key's write are the domain's.
  handler: ({ quoteId, attendees }, ctx) =>
    reserveWithAttendees(ctx, quoteId, attendees, () => reserveInBatch(ctx, quoteId)),
});
