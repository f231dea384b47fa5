/**
 * The sandbox's charges arriving while one is recorded are recorded together (src/payments/sandbox-charges.ts): each
 * keeps its own answer (success, decline, pending), a payment id charged twice in one group charges once, and a group
 * whose statement fails records its charges one by one, so one bad charge fails alone.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Database } from '../../src/storage/database.ts';
import { SandboxProvider } from '../../src/payments/sandbox-provider.ts';
import type { ChargeRequest } from '../../src/payments/provider.ts';
import { openTestDatabase } from '../support/database.ts';

let db: Database;
let provider: SandboxProvider;
before(async () => {
  ({ db } = await openTestDatabase());
  provider = new SandboxProvider({ db, webhookSecret: 'whsec_test', settleMs: 60_000 });
});
after(async () => {
  await db?.close();
});

const charge = (paymentMethod: string, over: Partial<ChargeRequest> = {}): ChargeRequest => ({
  paymentId: `pay_${randomUUID()}`,
  paymentMethod,
  amountMinor: 1000,
  currency: 'EUR',
  now: new Date('2026-11-29T08:00:00Z'),
  ...over,
});
const ledger = async (refs: string[]) =>
  (
    await db.bound<{ n: number }>('select count(*)::int as n from sandbox_charges where payment_reference = any($1)', [
      refs,
    ])
  )[0]!.n;

test('concurrent charges are recorded in one group, each with its own outcome; a payment id twice charges once', async () => {
  const before = provider.chargeStats;
  const methods = [
    'pm_sandbox_visa',
    'pm_sandbox_declined',
    'pm_sandbox_async_success',
    'pm_sandbox_insufficient_funds',
  ];
  const requests = Array.from({ length: 12 }, (_, i) => charge(methods[i % methods.length]!));
  // The last request retries the first one's payment id with another card: the first charge's answer stands.
  requests.push({ ...requests[0]!, paymentMethod: 'pm_sandbox_declined' });
  const answers = await Promise.all(requests.map((r) => provider.charge(r)));
  const after = provider.chargeStats;
  assert.equal(after.calls - before.calls, 13);
  assert.ok(after.groups - before.groups < 13, 'the charges arriving meanwhile were grouped');
  assert.ok(after.largest >= 12, `the largest group held ${after.largest} charges`);
  for (const [i, answer] of answers.slice(0, 12).entries()) {
    const expected = { 0: 'succeeded', 1: 'failed', 2: 'pending', 3: 'failed' }[i % 4];
    assert.equal(answer.status, expected, `charge ${i} (${requests[i]!.paymentMethod})`);
    if (answer.status === 'failed') assert.equal(answer.code, i % 4 === 1 ? 'payment_declined' : 'insufficient_funds');
  }
  assert.deepEqual(answers[12], answers[0], 'the same payment id answers the same charge');
  assert.equal(await ledger(requests.map((r) => r.paymentId)), 12, 'one ledger row per payment id');
  // Charged again later, alone: the stored charge is answered.
  assert.deepEqual(await provider.charge({ ...requests[1]!, paymentMethod: 'pm_sandbox_visa' }), answers[1]);
});

test('a group whose statement fails records its charges one by one: only the bad charge fails', async () => {
  const good = [charge('pm_sandbox_visa'), charge('pm_sandbox_visa')];
  const bad = charge('pm_sandbox_visa', { amountMinor: 3_000_000_000 }); // beyond the ledger's integer column
  const [lead, ...rest] = await Promise.allSettled([
    provider.charge(charge('pm_sandbox_visa')), // the four arrive in one turn and form one group
    provider.charge(good[0]!),
    provider.charge(bad),
    provider.charge(good[1]!),
  ]);
  assert.equal(lead!.status, 'fulfilled');
  assert.deepEqual(
    rest.map((r) => r.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  assert.equal(await ledger(good.map((r) => r.paymentId)), 2);
  assert.equal(await ledger([bad.paymentId]), 0);
});
