/** The business-event log port: the domain says what happened; composition binds it to the structured log. */
import type { RefundCause } from './metrics.ts';

/**
 * One business event, as its log line carries it (`msg: "business event"`, `event`: the kind). Ids and amounts only:
 * never an e-mail address, a name, a token or a card (README, "Operations").
 */
export type BusinessEvent =
  | { event: 'sale'; orderId: string; merchantId: string; totalMinor: number; currency: string }
  | {
      event: 'refund';
      refundId?: string | undefined;
      orderId?: string | undefined;
      paymentId: string;
      amountMinor: number;
      outcome: 'succeeded' | 'failed' | 'pending';
      cause: RefundCause;
    }
  | { event: 'event_cancelled'; eventId: string; merchantId: string }
  | { event: 'sign_in'; surface: 'console'; userId: string; organizationId: string }
  | { event: 'sign_in'; surface: 'buyer'; buyerId: string; merchantId: string | null }
  | { event: 'api_key_created' | 'api_key_revoked'; keyId: string; organizationId: string; byUserId: string };

/**
 * Where business events go. `Services.events` writes at once (for domain code that commits on its own: call it after
 * the commit); a tool's `ToolContext.events` holds them until the orchestrator has committed the call, and drops them
 * when it fails.
 */
export interface BusinessEvents {
  record(event: BusinessEvent): void;
}
