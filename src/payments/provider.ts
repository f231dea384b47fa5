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

/**
 * A card-network credential (e.g. a network token) that a verified signed mandate authorizes
 * (purchase_initiate): the charge runs on it instead of a payment-method token.
 */
export interface NetworkCredential {
  /** The signing network (a trust-list id). */
  network: string;
  /** The mandate's `credentialRef`. */
  credentialRef: string;
  /** The mandate that authorizes the charge, for the provider's records. */
  mandateId: string;
}

export interface ChargeRequest {
  /** Our payment id: the provider's idempotency reference, so a retried charge never charges twice. */
  paymentId: string;
  /** A payment-method token; for a network-credential charge, the credential's reference. */
  paymentMethod: string;
  /** Set when the payment source is a network credential under a signed mandate. */
  networkCredential?: NetworkCredential | undefined;
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

/**
 * A refund of part (or all) of a succeeded charge, identified by our refund id (the provider's idempotency reference).
 */
export interface PartialRefundRequest {
  refundId: string;
  paymentId: string;
  /** The provider's charge reference. */
  reference: string;
  amountMinor: number;
  currency: string;
  now: Date;
}

/** The provider's answer to a refund: done, refused, or pending (a signed event reports the outcome later). */
export type RefundResult =
  | { status: 'succeeded'; reference: string }
  | { status: 'failed'; reference: string; code: 'refund_failed' }
  | { status: 'pending'; reference: string };

/** A verified provider event, in our terms. */
export interface ProviderEvent {
  /** The provider's event id: an event is applied at most once. */
  id: string;
  type: 'payment.succeeded' | 'payment.failed' | 'refund.succeeded' | 'refund.failed';
  /** Our payment id, echoed back by the provider. */
  paymentId: string;
  /** The provider's charge reference. */
  reference: string;
  /** For refund events: our refund id, echoed back by the provider. */
  refundId?: string;
  failureCode?: DeclineCode | 'refund_failed';
}

export interface PaymentProvider {
  readonly name: ProviderName;
  /** The method's card scheme, or undefined when the provider does not know the method. */
  describeMethod(paymentMethod: string): MethodInfo | undefined;
  /**
   * The card scheme of a network credential (a mandate's `credentialRef`), or undefined when it cannot be charged here.
   */
  describeNetworkCredential(credentialRef: string): MethodInfo | undefined;
  charge(req: ChargeRequest): Promise<ChargeResult>;
  /** Refunds a succeeded charge in full; idempotent per charge. Returns the refund reference. */
  refund(req: RefundRequest): Promise<string>;
  /**
   * Refunds `amountMinor` of a succeeded charge; idempotent per `refundId` (a retry returns the first answer).
   * Throws when the charge is not refundable or the refunds would exceed it.
   */
  refundPart(req: PartialRefundRequest): Promise<RefundResult>;
  /**
   * Verifies a webhook request's signature over its raw body (throws `invalid_signature` or
   * `stale_signature`) and parses it (throws `invalid_input`).
   */
  parseEvent(rawBody: Buffer, headers: Record<string, string | undefined>, now: Date): ProviderEvent;
}
