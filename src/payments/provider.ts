/**
 * The payment-provider interface: every provider charges a payment method, refunds a charge, and turns
 * its signed webhook request into a verified event. The orchestrator never sees provider wire formats.
 */

/** Payment providers a shop can be linked to. Only `sandbox` is switched on in this environment. */
export const PROVIDER_NAMES = ['sandbox', 'stripe'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** What a provider says about a payment method before charging it (used for `allowedSchemes`). */
export interface MethodInfo {
  scheme: string;
}

export interface ChargeRequest {
  /** Our payment id: the provider's idempotency reference, so a retried charge never charges twice. */
  paymentId: string;
  paymentMethod: string;
  amountMinor: number;
  currency: string;
  now: Date;
}

export type DeclineCode = 'payment_declined' | 'insufficient_funds';

/** The provider's immediate answer: done, declined, or pending (a signed event reports the outcome later). */
export type ChargeResult =
  | { status: 'succeeded'; reference: string }
  | { status: 'failed'; reference: string; code: DeclineCode }
  | { status: 'pending'; reference: string };

export interface RefundRequest {
  reference: string;
  paymentId: string;
  amountMinor: number;
  now: Date;
}

/** A verified provider event, in our terms. */
export interface ProviderEvent {
  /** The provider's event id: an event is applied at most once. */
  id: string;
  type: 'payment.succeeded' | 'payment.failed';
  /** Our payment id, echoed back by the provider. */
  paymentId: string;
  /** The provider's charge reference. */
  reference: string;
  failureCode?: DeclineCode;
}

export interface PaymentProvider {
  readonly name: ProviderName;
  /** The method's card scheme, or undefined when the provider does not know the method. */
  describeMethod(paymentMethod: string): MethodInfo | undefined;
  charge(req: ChargeRequest): Promise<ChargeResult>;
  /** Refunds a succeeded charge in full; idempotent per charge. Returns the refund reference. */
  refund(req: RefundRequest): Promise<string>;
  /**
   * Verifies a webhook request's signature over its raw body (throws `invalid_signature` or
   * `stale_signature`) and parses it (throws `invalid_input`).
   */
  parseEvent(rawBody: Buffer, headers: Record<string, string | undefined>, now: Date): ProviderEvent;
}
