/**
 * Builders for the purchase_initiate tests: a spine harness trusting a test network, signed mandates, and "nothing
 * happened" checks.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import type { Harness } from './harness.ts';
import { assertInvariant, type PoolCounts } from './invariant.ts';
import { makeKey, mandateText, signDetached, writeTrustList, type TestKey } from './independent-signer.ts';
import { count, key, startSpineHarness, type Api } from './spine.ts';

export interface Vic {
  h: Harness;
  /** The `testnet` network's signing key (its JWKS is in the trust list passed as MANDATE_TRUST_LIST). */
  key: TestKey;
  close(): Promise<void>;
}

/** A spine harness (background loops off) whose mandate trust list, in a temp dir, trusts `testnet`. */
export async function startVic(env: Record<string, string> = {}): Promise<Vic> {
  const signing = makeKey('EdDSA');
  const trust = writeTrustList([signing]);
  const h = await startSpineHarness({ MANDATE_TRUST_LIST: trust.path, ...env });
  return {
    h,
    key: signing,
    async close() {
      await h.close();
      rmSync(trust.dir, { recursive: true, force: true });
    },
  };
}

export interface SignedMandate {
  payload: string;
  signature: string;
  /** The artefact as an object (for assertions). */
  artefact: Record<string, any>;
}

/**
 * A mandate for `merchantId`, signed by the test network with Node crypto: valid for an hour, limit 250.00 EUR,
 * single use, charging the sandbox network credential `sbx-token-visa-4242` unless overridden.
 */
export function signedMandate(
  v: Vic,
  merchantId: string,
  over: Record<string, unknown> = {},
  signer: TestKey = v.key,
): SignedMandate {
  const payload = mandateText(v.h.clock.now(), merchantId, { credentialRef: 'sbx-token-visa-4242', ...over });
  return { payload, signature: signDetached(signer, payload), artefact: JSON.parse(payload) };
}

/** POST /v1/vic/purchase-initiate with a fresh Idempotency-Key unless headers are given. */
export const initiate = (api: Api, body: Record<string, unknown>, headers: Record<string, string> = key()) =>
  api.post('/v1/vic/purchase-initiate', body, headers);

/** The request body for a reservation and a signed mandate. */
export const forReservation = (reservationId: string, m: SignedMandate) => ({
  reservationId,
  mandate: { payload: m.payload, signature: m.signature },
});

/** How many times the mandate's jti is recorded as spent (any period). */
export const spentRows = (h: Harness, m: SignedMandate) =>
  count(h.db, 'from mandate_jtis where jti = ?', [m.artefact.jti]);

/**
 * After a refusal: no payment row and no provider charge for the reservation, the reservation still
 * `held` with its own hold, the pool exactly as before (invariant holds), and the jti not spent.
 */
export async function assertNothingHappened(
  v: Vic,
  api: Api,
  reservation: { id: string; expiresAt: string; poolId: string },
  before: PoolCounts,
  m?: SignedMandate,
): Promise<void> {
  const { h } = v;
  assert.equal(await count(h.db, 'from payments where reservation_id = ?', [reservation.id]), 0, 'no payment row');
  const charges = await count(
    h.db,
    'from sandbox_charges c join payments p on p.id = c.payment_reference where p.reservation_id = ?',
    [reservation.id],
  );
  assert.equal(charges, 0, 'no provider charge');
  const now = (await api.get(`/v1/ticketing/reservations/${reservation.id}`)).body;
  assert.equal(now.reservation.state, 'held');
  assert.equal(now.reservation.expiresAt, reservation.expiresAt, 'the hold is not extended');
  assert.equal(now.payment, undefined);
  assert.deepEqual(await assertInvariant(h.db, reservation.poolId), before, 'places unchanged');
  if (m) assert.equal(await spentRows(h, m), 0, 'the jti is not spent');
}
