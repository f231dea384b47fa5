/** The closed table of error codes: every failure any surface reports is one of these (src/kernel/errors.ts). */

/** Each code's HTTP status and a default message. Add codes here; mappings are exhaustive. */
export const ERRORS = {
  invalid_input: { status: 400, message: 'The request is not valid.' },
  unknown_field: { status: 400, message: 'The request has a field this operation does not know.' },
  invalid_json: { status: 400, message: 'The request body is not valid JSON.' },
  missing_idempotency_key: {
    status: 400,
    message: 'This operation requires an idempotency key (over REST, an Idempotency-Key header).',
  },
  unauthenticated: { status: 401, message: 'A valid bearer credential is required.' },
  forbidden: { status: 403, message: 'This credential may not perform this operation.' },
  insufficient_scope: { status: 403, message: 'The API key lacks a scope this operation requires.' },
  not_found: { status: 404, message: 'Not found.' },
  route_not_found: { status: 404, message: 'No operation at this path.' },
  method_not_allowed: { status: 405, message: 'This method is not allowed here.' },
  conflict: { status: 409, message: 'The request conflicts with the current state.' },
  idempotency_in_flight: { status: 409, message: 'A request with this idempotency key is still being processed.' },
  idempotency_conflict: { status: 422, message: 'This idempotency key was used with a different request.' },
  invalid_webhook_url: {
    status: 400,
    message: 'Webhook URLs must use https:// to a public address (loopback only with WEBHOOK_ALLOW_LOOPBACK=true).',
  },
  webhook_limit_reached: { status: 409, message: 'This shop already has the maximum number of webhooks.' },
  limit_reached: {
    status: 409,
    message: 'This would pass a fixed limit (details: `what` and `limit`): remove or revoke one first.',
  },
  too_many_payment_attempts: {
    status: 409,
    message: 'This reservation has had the most payment attempts allowed: release it and reserve again.',
  },
  not_on_sale_yet: { status: 409, message: 'This tier is not on sale yet.' },
  sale_ended: { status: 409, message: 'The sale for this tier has ended.' },
  not_sellable: { status: 409, message: 'This tier is not sellable.' },
  quantity_over_limit: { status: 422, message: 'The quantity exceeds the maximum per purchase for this tier.' },
  country_required: { status: 422, message: 'This tier sells only to some countries: give the buyer’s country.' },
  geo_not_allowed: { status: 422, message: 'This tier cannot be sold to buyers in that country.' },
  scheme_required: { status: 422, message: 'This tier accepts only some card schemes: give the card scheme.' },
  scheme_not_allowed: { status: 422, message: 'This tier does not accept that card scheme.' },
  sold_out: { status: 409, message: 'Not enough places are left.' },
  discount_code_invalid: {
    status: 422,
    message:
      'The discount code cannot be used (details.reason: unknown, disabled, not_started, expired, exhausted, ' +
      'buyer_limit, buyer_required, not_applicable, currency_mismatch).',
  },
  discount_code_taken: { status: 409, message: 'This shop already has a discount code with that text.' },
  attendee_answers_missing: {
    status: 422,
    message: 'Some tickets still lack required attendee answers (details.missing: tierId, index, name, questionIds).',
  },
  invalid_answer: {
    status: 422,
    message: 'An attendee answer does not fit its question (details: tierId, index, questionId, reason).',
  },
  places_available: {
    status: 409,
    message: 'Places are available now: quote and reserve them instead of joining the waiting list.',
  },
  waiting_list_closed: { status: 409, message: 'This tier has no waiting list.' },
  quote_expired: { status: 410, message: 'The quote has expired; ask for a new one.' },
  quote_already_used: { status: 409, message: 'This quote was already used for a reservation.' },
  reservation_expired: { status: 410, message: 'The reservation has expired and its places were given back.' },
  reservation_released: { status: 409, message: 'The reservation was released; make a new one.' },
  reservation_not_held: { status: 409, message: 'The reservation is not held, so this is not possible.' },
  payment_in_flight: {
    status: 409,
    message: 'A payment for this reservation is being confirmed; wait for its outcome.',
  },
  payment_declined: { status: 402, message: 'The payment was declined; try another payment method.' },
  insufficient_funds: {
    status: 402,
    message: 'The payment was declined for insufficient funds; try another payment method.',
  },
  unknown_payment_method: { status: 422, message: 'The payment method is not one the shop’s payment provider knows.' },
  instrument_not_found: { status: 404, message: 'No saved card with that id.' },
  provider_not_enabled: { status: 409, message: 'That payment provider is not switched on in this environment.' },
  invalid_signature: { status: 400, message: 'The provider event signature is missing or does not verify.' },
  stale_signature: { status: 400, message: 'The provider event signature is too old or from the future.' },
  mandate_jws_malformed: { status: 422, message: 'The mandate signature is not a well-formed compact detached JWS.' },
  mandate_payload_missing: {
    status: 422,
    message: 'The detached mandate payload is missing: send the exact bytes that were signed.',
  },
  mandate_alg_not_allowed: {
    status: 422,
    message: 'The mandate signature algorithm is not allowed (asymmetric algorithms only).',
  },
  mandate_crit_unsupported: {
    status: 422,
    message: 'The mandate signature has a critical header parameter this server does not understand.',
  },
  mandate_b64_without_crit: { status: 422, message: 'The mandate signature uses "b64" without listing it in "crit".' },
  mandate_network_untrusted: { status: 422, message: 'The mandate’s signing network is not in the trust list.' },
  mandate_kid_unknown: {
    status: 422,
    message: 'The signing network publishes no key with the mandate signature’s "kid".',
  },
  mandate_signature_invalid: {
    status: 422,
    message: 'The mandate signature does not verify: the payload or signature was altered.',
  },
  mandate_invalid: { status: 422, message: 'The signed mandate does not follow the mandate profile.' },
  mandate_expired: { status: 422, message: 'The mandate has expired.' },
  mandate_not_yet_valid: { status: 422, message: 'The mandate is not valid yet.' },
  mandate_merchant_mismatch: { status: 403, message: 'The mandate does not authorize purchases at this merchant.' },
  mandate_jti_used: { status: 409, message: 'This mandate was already used.' },
  mandate_trust_unavailable: {
    status: 503,
    message: 'The signing network’s keys cannot be loaded right now; retry later.',
  },
  mandate_required: {
    status: 403,
    message: 'This operation needs a network-signed mandate (payload and detached signature) as its spend authority.',
  },
  mandate_amount_exceeded: { status: 403, message: 'The purchase total is above the mandate’s amount limit.' },
  mandate_currency_mismatch: {
    status: 403,
    message: 'The purchase is in another currency than the mandate’s amount limit.',
  },
  partner_origin_refused: {
    status: 403,
    message: 'Sign-in and verification happen only on this service’s own pages, not from a partner origin.',
  },
  sign_in_link_invalid: {
    status: 422,
    message: 'The sign-in link is unknown, already used or expired; ask for a new one.',
  },
  verification_required: {
    status: 403,
    message:
      'This operation first needs the 6-digit code emailed to the buyer: request one and send challengeId and code.',
  },
  verification_code_invalid: { status: 422, message: 'The verification code is not correct.' },
  verification_code_expired: {
    status: 422,
    message: 'The verification code has expired or was already used; request a new one.',
  },
  verification_attempts_exhausted: {
    status: 422,
    message: 'Too many wrong codes for this challenge; request a new code.',
  },
  verification_code_mismatch: {
    status: 422,
    message:
      'This code was e-mailed for other details than these (agent, card or limits); request a new code for what you are authorizing.',
  },
  session_shop_required: {
    status: 422,
    message: 'This session is not for a shop; sign in from the shop (merchantId) to do this.',
  },
  merchant_consent_not_enabled: { status: 403, message: 'This merchant is not enabled for attested consent.' },
  attestation_ceiling_exceeded: {
    status: 422,
    message: 'The permission exceeds the ceilings set for attested consent.',
  },
  instrument_provider_mismatch: {
    status: 409,
    message: 'The saved card belongs to another shop or payment connection.',
  },
  card_setup_not_ready: {
    status: 409,
    message: 'The card setup has not succeeded yet; complete it in the card form first.',
  },
  card_preparation_unavailable: {
    status: 503,
    message: 'The payment provider could not prepare the card right now; retry.',
  },
  card_not_chargeable: { status: 422, message: 'This card cannot be charged later; use another card in the setup.' },
  card_customer_mismatch: {
    status: 422,
    message: 'The card belongs to another customer at the payment provider; start the setup again.',
  },
  agent_paused: { status: 403, message: 'The agent is paused.' },
  permission_missing: { status: 403, message: 'The agent has no permission from the buyer to spend.' },
  permission_wrong_shop: { status: 403, message: 'The agent’s permission is for another shop.' },
  permission_expired: { status: 403, message: 'The agent’s permission has expired.' },
  permission_revoked: { status: 403, message: 'The agent’s permission was revoked.' },
  over_purchase_cap: { status: 403, message: 'The amount is above the permission’s per-purchase cap.' },
  over_card_cap: { status: 403, message: 'The amount is above the saved card’s spending cap.' },
  allowance_exhausted: { status: 403, message: 'The permission’s rolling allowance does not cover this amount.' },
  limit_raise_closed: {
    status: 409,
    message: 'This limit-raise request was already answered or has expired.',
  },
  missing_api_version: { status: 400, message: 'The API-Version header is required.' },
  unsupported_api_version: { status: 400, message: 'This API version is not supported.' },
  invalid_profile_url: {
    status: 400,
    message: 'The UCP-Agent header must name the platform profile: profile="https://…".',
  },
  profile_unreachable: { status: 424, message: 'The platform profile could not be fetched.' },
  profile_malformed: { status: 422, message: 'The platform profile is not a valid UCP profile.' },
  version_unsupported: { status: 422, message: 'This UCP version is not supported.' },
  capabilities_incompatible: {
    status: 422,
    message: 'The platform profile declares no capability this business offers at a mutual version.',
  },
  checkout_session_not_cancelable: { status: 405, message: 'The checkout session is already completed or canceled.' },
  checkout_session_closed: {
    status: 409,
    message: 'The checkout session is completed or canceled; it can no longer change.',
  },
  checkout_session_not_ready: {
    status: 409,
    message: 'The checkout session is not ready for payment; resolve its messages first.',
  },
  payment_handler_unsupported: {
    status: 422,
    message: 'Use a payment handler the checkout session offers, with a delegated payment token.',
  },
  invalid_card: {
    status: 400,
    message: 'The card is not one the sandbox vault accepts: use a documented sandbox test card.',
  },
  delegated_token_invalid: { status: 422, message: 'The delegated payment token is unknown.' },
  delegated_token_used: {
    status: 409,
    message: 'The delegated payment token was already used (its allowance is one_time).',
  },
  allowance_expired: { status: 422, message: 'The delegated payment token’s allowance has expired.' },
  allowance_amount_exceeded: { status: 422, message: 'The total is above the delegated payment token’s max_amount.' },
  allowance_currency_mismatch: {
    status: 422,
    message: 'The checkout currency is not the delegated payment token’s currency.',
  },
  allowance_session_mismatch: { status: 422, message: 'The delegated payment token is for another checkout session.' },
  allowance_merchant_mismatch: { status: 422, message: 'The delegated payment token is for another merchant.' },
  ap2_unsupported: { status: 422, message: 'AP2 is not supported pending verified checkout authorization.' },
  payload_too_large: { status: 413, message: 'The request body is too large.' },
  headers_too_large: { status: 431, message: 'The request headers are too large.' },
  request_timeout: { status: 408, message: 'The request (its headers and body) did not arrive in time.' },
  malformed_request: { status: 400, message: 'The HTTP request is malformed.' },
  unsupported_media_type: { status: 415, message: 'Request bodies must be application/json.' },
  invalid_embed_origin: {
    status: 400,
    message:
      'An embed origin is not a bare https:// origin (http:// only for localhost), or more than three were given.',
  },
  shop_has_purchases_in_flight: {
    status: 409,
    message: 'The shop has held reservations or payments being confirmed; wait for them to finish before deleting it.',
  },
  event_cancelled: { status: 409, message: 'The event was cancelled; its tickets can no longer be bought or changed.' },
  tier_retired: { status: 409, message: 'The tier was retired; it can no longer be bought or changed.' },
  capacity_below_committed: { status: 409, message: 'The capacity would be below the places already held and sold.' },
  already_member: { status: 409, message: 'That person is already a member of this organization.' },
  invitation_invalid: {
    status: 422,
    message: 'The invitation is unknown, already used, withdrawn or expired; ask an owner for a new one.',
  },
  last_owner: { status: 409, message: 'An organization keeps at least one owner: make someone else an owner first.' },
  invalid_provider_settings: { status: 400, message: 'The payment provider settings are not valid.' },
  invalid_wallet_settings: { status: 400, message: 'The wallet pass settings are not valid (details: `field`).' },
  unknown_time_zone: { status: 400, message: 'The time zone is not an IANA time zone name (e.g. Europe/Budapest).' },
  rate_limited: { status: 429, message: 'Too many requests; retry later.' },
  order_fully_refunded: { status: 409, message: 'Every ticket of this order is already refunded or being refunded.' },
  ticket_not_refundable: { status: 409, message: 'That ticket is void or already being refunded.' },
  refund_failed: { status: 402, message: 'The payment provider refused the refund; the order stays paid.' },
  invalid_ticket_code: { status: 422, message: 'The ticket code is malformed, forged or tampered with.' },
  ticket_void: { status: 409, message: 'The ticket was voided (e.g. refunded) and does not admit.' },
  already_checked_in: { status: 409, message: 'The ticket was already checked in.' },
  ticket_wrong_event: { status: 409, message: 'The ticket is for another event.' },
  scan_time_out_of_range: {
    status: 422,
    message: 'A scan is dated before the event’s doors or its ticket, or after the upload; check the scanner’s clock.',
  },
  delivery_pending: {
    status: 409,
    message: 'This delivery is still queued: its next attempt is already due or in progress.',
  },
  oauth_interaction_invalid: {
    status: 400,
    message:
      'This authorization request is unknown, expired or already completed, or was opened in another browser: start again from the client.',
  },
  internal_error: { status: 500, message: 'An unexpected error occurred.' },
  unavailable: { status: 503, message: 'The service is temporarily unavailable.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;
