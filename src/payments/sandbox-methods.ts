/** The sandbox provider's test payment methods (contract.md) and the card numbers its hosted form maps to them. */
import type { DeclineCode } from './provider.ts';

export interface SandboxMethod {
  scheme: 'visa' | 'mastercard' | 'amex';
  /** The test card number the hosted card form turns into this method. */
  cardNumber: string;
  /** `sync`: answered at once; `async`: pending, then a signed event after SANDBOX_SETTLE_MS. */
  timing: 'sync' | 'async';
  outcome: 'succeeded' | 'failed';
  failureCode?: DeclineCode;
  /**
   * How a refund of a charge on this method behaves: at once (default), `fails` at once, or `async` (succeeds later, by
   * signed event).
   */
  refund?: 'fails' | 'async';
}

export const SANDBOX_METHODS: Readonly<Record<string, SandboxMethod>> = {
  pm_sandbox_visa: { scheme: 'visa', cardNumber: '4242424242424242', timing: 'sync', outcome: 'succeeded' },
  pm_sandbox_mastercard: { scheme: 'mastercard', cardNumber: '5555555555554444', timing: 'sync', outcome: 'succeeded' },
  pm_sandbox_amex: { scheme: 'amex', cardNumber: '378282246310005', timing: 'sync', outcome: 'succeeded' },
  pm_sandbox_declined: {
    scheme: 'visa',
    cardNumber: '4000000000000002',
    timing: 'sync',
    outcome: 'failed',
    failureCode: 'payment_declined',
  },
  pm_sandbox_insufficient_funds: {
    scheme: 'visa',
    cardNumber: '4000000000009995',
    timing: 'sync',
    outcome: 'failed',
    failureCode: 'insufficient_funds',
  },
  pm_sandbox_refund_fails: {
    scheme: 'visa',
    cardNumber: '4000000000005126',
    timing: 'sync',
    outcome: 'succeeded',
    refund: 'fails',
  },
  pm_sandbox_refund_async: {
    scheme: 'visa',
    cardNumber: '4000000000007726',
    timing: 'sync',
    outcome: 'succeeded',
    refund: 'async',
  },
  pm_sandbox_async_success: { scheme: 'visa', cardNumber: '4000000000003220', timing: 'async', outcome: 'succeeded' },
  pm_sandbox_async_failure: {
    scheme: 'visa',
    cardNumber: '4000000000000341',
    timing: 'async',
    outcome: 'failed',
    failureCode: 'payment_declined',
  },
};

/** The method a test card number stands for (spaces and dashes ignored), or undefined. */
export function methodForCard(cardNumber: string): string | undefined {
  const digits = cardNumber.replace(/[\s-]/g, '');
  return Object.entries(SANDBOX_METHODS).find(([, m]) => m.cardNumber === digits)?.[0];
}

export interface SetupTestCard {
  /** The test card number the hosted form should map to this method. */
  cardNumber: string;
  scheme: 'visa';
  /**
   * `unavailable_once`: the first try of this card in a setup answers card_preparation_unavailable; retrying it
   * succeeds.
   */
  outcome: 'unavailable_once' | 'card_not_chargeable' | 'card_customer_mismatch';
  /** What the card charges as once prepared. */
  chargesAs: string;
}

/** Setup-only sandbox test cards (numbers for the hosted card form; tokens for API callers and tests). */
export const SANDBOX_SETUP_TEST_CARDS: Readonly<Record<string, SetupTestCard>> = {
  pm_sandbox_setup_unavailable: {
    cardNumber: '4000000000000119',
    scheme: 'visa',
    outcome: 'unavailable_once',
    chargesAs: 'pm_sandbox_visa',
  },
  pm_sandbox_not_chargeable: {
    cardNumber: '4000000000000069',
    scheme: 'visa',
    outcome: 'card_not_chargeable',
    chargesAs: 'pm_sandbox_visa',
  },
  pm_sandbox_customer_mismatch: {
    cardNumber: '4000000000000127',
    scheme: 'visa',
    outcome: 'card_customer_mismatch',
    chargesAs: 'pm_sandbox_visa',
  },
};
