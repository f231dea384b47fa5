/**
 * Preparing a card for later (agent-initiated) charges: the provider's side of a card setup. The sandbox
 * answers deterministically from the payment method the hosted card form produced; every ordinary test
 * method prepares, and three setup test cards produce the setup errors (documented in docs/buyers-and-agents.md).
 */
import { ToolError } from '../orchestrator/errors.ts';
import { SANDBOX_METHODS } from '../payments/sandbox-methods.ts';

export interface SetupTestCard {
  /** The test card number the hosted form should map to this method. */
  cardNumber: string;
  scheme: 'visa';
  /** `unavailable_once`: the first try of this card in a setup answers card_preparation_unavailable; retrying it succeeds. */
  outcome: 'unavailable_once' | 'card_not_chargeable' | 'card_customer_mismatch';
  /** What the card charges as once prepared. */
  chargesAs: string;
}

/** Setup-only sandbox test cards (numbers for the hosted card form; tokens for API callers and tests). */
export const SANDBOX_SETUP_TEST_CARDS: Readonly<Record<string, SetupTestCard>> = {
  pm_sandbox_setup_unavailable: { cardNumber: '4000000000000119', scheme: 'visa', outcome: 'unavailable_once', chargesAs: 'pm_sandbox_visa' },
  pm_sandbox_not_chargeable: { cardNumber: '4000000000000069', scheme: 'visa', outcome: 'card_not_chargeable', chargesAs: 'pm_sandbox_visa' },
  pm_sandbox_customer_mismatch: { cardNumber: '4000000000000127', scheme: 'visa', outcome: 'card_customer_mismatch', chargesAs: 'pm_sandbox_visa' },
};

/** A prepared card: the method to charge later, its scheme and last four digits. */
export interface PreparedCard {
  paymentMethod: string;
  scheme: string;
  last4: string;
}

/**
 * Asks the provider to prepare `paymentMethod` for this setup; `retry` is true when the setup's previous
 * attempt was with the same method.
 * Throws card_preparation_unavailable (retry), card_not_chargeable / card_customer_mismatch (the buyer
 * must use another card) or unknown_payment_method.
 */
export function prepareCard(provider: string, paymentMethod: string, retry: boolean): PreparedCard {
  if (provider !== 'sandbox') throw new ToolError('card_preparation_unavailable', `The ${provider} provider cannot prepare cards here.`, undefined, 5);
  const special = SANDBOX_SETUP_TEST_CARDS[paymentMethod];
  if (special) {
    if (special.outcome === 'unavailable_once' && !retry) {
      throw new ToolError('card_preparation_unavailable', undefined, { paymentMethod, retryable: true }, 1);
    }
    if (special.outcome === 'card_not_chargeable' || special.outcome === 'card_customer_mismatch') {
      throw new ToolError(special.outcome, undefined, { paymentMethod });
    }
    return { paymentMethod: special.chargesAs, scheme: special.scheme, last4: special.cardNumber.slice(-4) };
  }
  const method = SANDBOX_METHODS[paymentMethod];
  if (!method) throw new ToolError('unknown_payment_method', undefined, { paymentMethod });
  return { paymentMethod, scheme: method.scheme, last4: method.cardNumber.slice(-4) };
}
