/**
 * UCP Get Order (order.md, "Get Order"): the platform reads an order it placed through a UCP checkout, as the same
 * body its order webhook carries (`permalink_url` absolute). An order not placed through a UCP session the caller may
 * see (another platform's, another shop's, or one bought elsewhere) is not found.
 */
import { z } from 'zod';
import type { ToolContext } from '../context.ts';
import { requireAccess } from '../purchase/purchase-access.ts';
import { ucpOrder } from '../purchase/ucp-order-events.ts';
import { AcpCheckoutSession } from '../../storage/entities/acp.ts';
import { Order } from '../../storage/entities/purchase.ts';

const Text = (max: number) => z.string().max(max);
const Total = z.object({ type: Text(30), display_text: Text(100).optional(), amount: z.number().int() });
const LineRef = z.object({ id: Text(100), quantity: z.number().int() });
/** Refunds give back at least one ticket each, so an order has at most as many as it has tickets. */
const MAX_ADJUSTMENTS = 100;

/** The UCP order entity (order.json of 2026-04-08), as the order webhook sends it. */
export const UcpOrder = z.object({
  ucp: z.object({
    version: Text(10),
    capabilities: z.record(Text(100), z.array(z.object({ version: Text(10) })).max(1)),
  }),
  id: Text(100).describe('The order id (ord_…).'),
  checkout_id: Text(100).describe('The checkout session it was placed from (cs_…).'),
  permalink_url: z.string().describe('Where the order is read (our own REST order).'),
  currency: Text(3),
  line_items: z
    .array(
      z.object({
        id: Text(100),
        item: z.object({ id: Text(100), title: Text(510), price: z.number().int() }),
        quantity: z.object({ original: z.number().int(), total: z.number().int(), fulfilled: z.number().int() }),
        totals: z.array(Total).max(4),
        status: z.enum(['processing', 'partial', 'fulfilled', 'removed']),
      }),
    )
    .max(1),
  fulfillment: z.object({
    events: z
      .array(
        z.object({
          id: Text(100),
          occurred_at: z.string(),
          type: Text(30),
          line_items: z.array(LineRef).max(1),
          description: Text(200),
        }),
      )
      .max(1),
  }),
  adjustments: z
    .array(
      z.object({
        id: Text(100),
        type: Text(30),
        occurred_at: z.string(),
        status: z.enum(['pending', 'completed', 'failed']),
        line_items: z.array(LineRef).max(1),
        totals: z.array(Total).max(1),
        description: Text(500).optional(),
      }),
    )
    .max(MAX_ADJUSTMENTS),
  totals: z.array(Total).max(4),
});

/** The order `id` as UCP's order entity, when the caller placed it through a UCP checkout; else `not_found`. */
export async function getUcpOrder(ctx: ToolContext, id: string): Promise<z.infer<typeof UcpOrder>> {
  const session = await ctx.em.findOne(AcpCheckoutSession, { orderId: id });
  const s = requireAccess(ctx.principal, session?.apiVersion.startsWith('ucp/') ? session : null, 'order', id);
  const order = requireAccess(ctx.principal, await ctx.em.findOne(Order, { id }), 'order', id);
  const body = await ucpOrder(ctx.em, order, s.id);
  const base = ctx.services.publicUrl().replace(/\/$/, '');
  return { ...(body as z.infer<typeof UcpOrder>), permalink_url: `${base}${String(body.permalink_url)}` };
}
