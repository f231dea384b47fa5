/** get_payment: one payment attempt and its state. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { readPayment } from '../../domain/purchase/purchase-view.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { PaymentOut } from '../ticketing/schemas.ts';

export const getPayment = defineTool({
  name: 'get_payment',
  title: 'Get a payment',
  area: 'payments',
  description:
    'Returns one payment attempt: pending (the provider has not answered yet), succeeded, failed (with `failureCode`) ' +
    'or refunded. `refundDue` is true while an automatic refund is owed but not yet made.',
  input: z.strictObject({ id: IdRef.describe('The payment (pay_…).') }),
  output: PaymentOut,
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'buyer', 'agent'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/payments/{id}' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler({ id }, { em, principal }) {
    return readPayment(em, principal, id);
  },
});
