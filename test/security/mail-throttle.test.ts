/**
 * Abuse: the e-mail throttles hold under concurrency (issue #10, finding 5): 30 simultaneous requests for one address
 * send at most 5 sign-in links, and 30 for one buyer at most 10 codes; the rest are 429 `rate_limited`.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { CODES_PER_WINDOW, SIGN_IN_LINKS_PER_WINDOW } from '../../src/domain/buyers/throttle.ts';
import { restClient } from '../support/rest.ts';
import { merchantShop, newEmail, signIn, startWorld, type World } from '../support/buyers.ts';

let w: World;
before(async () => {
  w = await startWorld();
});
after(async () => {
  await w?.close();
});

const tally = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((t, s) => ({ ...t, [s]: (t[s] ?? 0) + 1 }), {});

test('30 concurrent sign-in link requests for one address send at most the limit', async () => {
  const email = newEmail();
  const anon = restClient(w.h.url);
  const statuses = await Promise.all(
    Array.from({ length: 30 }, () => anon.post('/v1/buyer/sign-in-links', { email }).then((r) => r.status)),
  );
  assert.deepEqual(tally(statuses), { 202: SIGN_IN_LINKS_PER_WINDOW, 429: 30 - SIGN_IN_LINKS_PER_WINDOW });
  const [row] = await w.h.db.execute<{ n: string }>('select count(*) as n from sign_in_links where email = ?', [email]);
  assert.equal(Number(row!.n), SIGN_IN_LINKS_PER_WINDOW);
});

test('30 concurrent code requests for one buyer send at most the limit', async () => {
  const shop = await merchantShop(w.h);
  const email = newEmail();
  const session = restClient(w.h.url, await signIn(w, email, shop.shopId));
  const statuses = await Promise.all(
    Array.from({ length: 30 }, () =>
      session.post('/v1/buyer/verification-codes', { purpose: 'create_agent' }).then((r) => r.status),
    ),
  );
  assert.deepEqual(tally(statuses), { 201: CODES_PER_WINDOW, 429: 30 - CODES_PER_WINDOW });
});
