/**
 * Preparing a card for later (agent-initiated) charges: the provider's side of a card setup. The sandbox
 * answers deterministically from the payment method the hosted card form produced; every ordinary test
 * method prepares, and three setup test cards produce the setup errors (documented in docs/buyers-and-agents.md).
 */
import { ToolError } from '../../kernel/errors.ts';
import { SANDBOX_METHODS, SANDBOX_SETUP_TEST_CARDS } from '../../payments/sandbox-methods.ts';

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
  if (provider !== 'sandbox')
    throw new ToolError(
      'card_preparation_unavailable',
      `The ${provider} provider cannot prepare cards here.`,
      undefined,
      5,
    );
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
