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
