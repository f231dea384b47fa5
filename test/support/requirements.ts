/**
 * The requirements the tests verify, one id per numbered clause of the interface specification (`SPEC-…`) and per
 * decision of the public contract that fills its gaps (`CONTRACT-…`), paraphrased here in our words. A test names the
 * ids it proves with `verifies(...)` in its name; test/integration/requirements.test.ts fails when an id has no test
 * and is not a known gap below.
 */

/** One requirement: its id, the section of the specification (or of the contract) and what it asks, in one line. */
export interface Requirement {
  id: string;
  section: string;
  text: string;
}

const spec = (id: string, section: string, text: string): Requirement => ({ id: `SPEC-${id}`, section, text });
const contract = (id: string, section: string, text: string): Requirement => ({ id: `CONTRACT-${id}`, section, text });

/** Every requirement, in the order of the specification, then the contract. */
export const REQUIREMENTS: readonly Requirement[] = [
  spec(
    '1-one-orchestrator',
    '§1',
    'REST is canonical; MCP and A2A run the same operations through the same orchestrator',
  ),
  spec('1-areas', '§1', 'operations are grouped by the listed areas (OpenAPI tags)'),
  spec('1-embeddable-consent', '§1', 'an embeddable authorize and consent view for partner pages'),
  spec('1-six-languages', '§1', 'buyer pages in English, German, Spanish, French, Hungarian and Brazilian Portuguese'),
  spec(
    '2.1-pool-shape',
    '§2.1, §4.1',
    'a pool has id, merchantId, capacity, availableCount (required) and the optional fields',
  ),
  spec('2.1-oversell-arbiter', '§2.1', 'availableCount is the oversell arbiter for every tier on the pool'),
  spec('2.2-tier-restrictions', '§2.2, §4.2', 'the six restriction fields are saved in the same write as the tier'),
  spec('2.3-discoverable', '§2.3', 'a shop has a discoverable flag'),
  spec(
    '2.3-session-mint',
    '§2.3',
    'a merchant mints a buyer session from merchantId, email, merchantAttested and lang',
  ),
  spec(
    '2.3-session-lang',
    '§2.3',
    "lang picks the buyer pages' language; without it the buyer's choice or browser decides",
  ),
  spec('2.3-theme-font', '§2.3', 'an optional theme font; without it a default typeface, derived colours readable'),
  spec('2.3-attested-label', '§2.3', 'an attested permission is labelled "Set up by <shop>"'),
  spec('2.3-key-last-used', '§2.3', 'an API key shows no usage until a token bound to it has been used'),
  spec(
    '2.3-attest-key-state',
    '§2.3',
    'attest keys read "attestation disabled" while it is off; the list has attestAvailable',
  ),
  spec(
    '2.3-consent-summary',
    '§2.3, §4.4',
    'the attested-consent summary: on/off, ceiling, keys, counts, near-ceiling, recent',
  ),
  spec(
    '3-confirm-async-202',
    '§3, §6',
    'a confirm the provider settles later answers 202; its event completes or releases it',
  ),
  spec(
    '3-draft-kept-one-day',
    '§3, §8',
    'an unfinished consent setup is kept one day per buyer and resumes where it was',
  ),
  spec(
    '3-discard-cancelled',
    '§3, §6',
    'confirming "Discard this setup?" cancels it and emits cancelled to the embedding page',
  ),
  spec(
    '3-withdraw-no-replenish',
    '§3, §4.5, §8',
    'an owner withdraws an attested permission with a reason; no allowance returns',
  ),
  spec('3-card-setup-reuse', '§3', 'retrying the verification of a card setup that succeeded reuses that setup'),
  spec('4.1-pools-listing', '§4.1', 'GET /v1/integration/pools?merchantId= answers { pools } with live availability'),
  spec('4.2-tier-unknown-field', '§4.2, §7', 'tier create refuses a field it does not know with 400, never drops it'),
  spec('4.3-embed-origins-roles', '§4.3', 'the owner and the integrator set the embed origins; no one else'),
  spec('5.1-bearer-default', '§5.1', 'bearer authentication (JWT format) applies to every operation by default'),
  spec('5.2-discovery-public', '§5.2', 'the discovery area answers without authentication'),
  spec(
    '5.3-scopes',
    '§5.3, §4.1',
    'API token scopes: merchant:read reads (pools), merchant:write catalog/webhooks/mint',
  ),
  spec('5.3-admin-scope', '§5.3', 'merchant:admin alone creates or deletes a shop and links a payment provider'),
  spec('5.3-admin-widening', '§5.3', 'keys that held merchant:write were widened to merchant:admin when it came'),
  spec('5.3-requested-scopes', '§5.3', 'a new key gets only the scopes requested'),
  spec('5.3-attest-only-key', '§5.3', 'a key may hold mandates:attest alone, for enabled organizations only'),
  spec('5.4-owner', '§5.4', 'the owner role has the whole console'),
  spec(
    '5.4-integrator-keys',
    '§5.4',
    'an integrator manages keys, never grants merchant:admin, revokes only its own keys',
  ),
  spec(
    '5.4-integrator-limits',
    '§5.4',
    'an integrator may not manage shops, payment providers, the catalog or the team',
  ),
  spec('5.5-bounded-memory-only', '§5.5', 'a bounded session is a bearer held in memory; no cookies'),
  spec('5.5-bounded-inside-authority', '§5.5', 'a bounded session acts inside authority the buyer already granted'),
  spec(
    '5.5-emailed-code',
    '§5.5, §8, §9',
    'saving a card, an agent, a mandate, an agent card or a higher cap needs a 6-digit code',
  ),
  spec('5.5-bounded-cannot-widen', '§5.5', 'a bounded bearer cannot create or widen spending authority'),
  spec('5.5-partner-origin-sign-in', '§5.5', 'sign-in and verification routes refuse partner origins'),
  spec(
    '5.6-attested-enabled-only',
    '§5.6, §7',
    'attested minting for staff-enabled merchants only, else 403 merchant_consent_not_enabled',
  ),
  spec(
    '5.6-attested-within-ceilings',
    '§5.6, §8',
    'an attested permission is created within staff-set ceilings, without the code',
  ),
  spec(
    '5.7-embed-origins-govern',
    '§5.7, §8',
    'the embed origins decide who frames the authorize page and calls the buyer API',
  ),
  spec('6-webhooks-write-scope', '§6', 'webhooks are managed with merchant:write'),
  spec('7-discovery-404', '§2.3, §7', 'discovery of a shop that is not discoverable answers 404'),
  spec(
    '7-instrument-provider-mismatch',
    '§2.3, §7',
    'a saved card used at another shop or connection is 409 instrument_provider_mismatch',
  ),
  spec('7-rate-limited', '§7, §8', 'over the rate limit: 429 rate_limited with retryAfter and a matching Retry-After'),
  spec(
    '7-card-setup-codes',
    '§7',
    'card setup errors: card_preparation_unavailable retryable, two that need correcting',
  ),
  spec(
    '8-embed-origins-limits',
    '§2.3, §8',
    'at most three bare origins, by spaces or commas; http for localhost only',
  ),
  spec('9-openapi-version', '§9', 'the API description is OpenAPI 3.1.0 with API version 1.0.0'),
  spec('9-v1-prefix', '§9', 'paths carry the /v1 prefix'),
  spec('9-changes-list', '§9', 'the published changes list has the October 2026 entries, with their status'),
  spec('9-second-provider-off', '§9', 'a second payment provider can be configured but is not switched on'),
  spec('9-sdk-versions', '§1, §9', 'the SDK: 0.4.0 browser entry, 0.5.0 typed attested mint, MIT licensed'),
  contract(
    'unknown-field',
    'wire',
    'every operation refuses an unknown request field with 400 unknown_field naming it',
  ),
  contract('error-shape', 'wire', 'errors are { code, message, details? } with the status from one table; never a 5xx'),
  contract(
    'idempotency-replay',
    'wire',
    'same Idempotency-Key and body replays the stored answer with Idempotent-Replayed',
  ),
  contract('idempotency-conflict', 'wire', 'same key with another body is 422 idempotency_conflict'),
  contract(
    'idempotency-in-flight',
    'wire',
    'a first request still running makes the same key 409 idempotency_in_flight',
  ),
  contract('idempotency-argument', 'wire', 'on MCP and A2A the key may travel as an idempotencyKey argument'),
  contract('other-org-404', 'principals', "another organization's object answers 404, not 403"),
  contract('openapi-document', 'surfaces', 'GET /v1/openapi.json: operationId = tool name, tags = areas'),
  contract('mcp-transports', 'surfaces', 'MCP over Streamable HTTP at /mcp (bearer) and over stdio (tessera mcp)'),
  contract('a2a-agent-card', 'surfaces', 'A2A agent card at /.well-known/agent-card.json; skills = tools'),
  contract('pool-invariant', 'purchase states', 'per pool at every commit: availableCount + held + sold = capacity'),
  contract(
    'sandbox-payment-methods',
    'spine inputs',
    'the sandbox test payment methods succeed, decline or settle later',
  ),
  contract('invalid-config', 'operations', 'invalid configuration stops start-up naming the variable'),
  contract('cli-bootstrap', 'operations', 'tessera bootstrap --json creates an organization, owner, shop and API key'),
];

/** Requirements no test verifies, each with the reason. The coverage test fails when one of them gains a test. */
export const KNOWN_GAPS: Readonly<Record<string, string>> = {
  'SPEC-5.3-admin-widening':
    'nothing to widen: merchant:admin is a scope since the first commit, so no stored key predates it',
};

const KNOWN = new Set(REQUIREMENTS.map((r) => r.id));

/**
 * The prefix of a test's name naming the requirements it verifies: `[SPEC-4.1-pools-listing] `. An unknown id throws
 * when the test file loads, so a misspelt id fails its file at once.
 */
export function verifies(...ids: string[]): string {
  if (ids.length === 0) throw new Error('verifies() needs at least one requirement id');
  for (const id of ids)
    if (!KNOWN.has(id)) throw new Error(`unknown requirement id ${id} (test/support/requirements.ts)`);
  return `[${ids.join(' ')}] `;
}
