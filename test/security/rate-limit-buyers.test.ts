/**
 * Abuse: a buyer multiplied its request budget by minting sessions (issue #32: `scope_buyer_session` × 4 → 2,996
 * requests in a minute). Buyer sessions are charged to the buyer: every full session of one buyer shares one budget,
 * bounded sessions one per buyer and shop, so a merchant minting sessions for an address cannot spend the buyer's own.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { restClient, type RestResponse } from '../support/rest.ts';
import { merchantShop, must, newEmail, signIn, startWorld, type World } from '../support/buyers.ts';

const BUDGET = 20;
let w: World;
before(async () => {
  w = await startWorld({ RATE_LIMIT_PER_MINUTE: String(BUDGET), RATE_LIMIT_STRICT_PER_MINUTE: '50' });
});
after(async () => {
  await w?.close();
});

function assertLimited(res: RestResponse) {
  assert.equal(res.status, 429, JSON.stringify(res.body));
  assert.equal(res.body.code, 'rate_limited');
  assert.equal(res.headers.get('retry-after'), String(res.body.retryAfter));
}

/** Calls `get_buyer_session` with each token in turn until every one is refused; returns how many were answered. */
async function spend(tokens: string[]): Promise<number> {
  let answered = 0;
  const live = new Set(tokens);
  for (let round = 0; live.size && round < BUDGET * 2; round++) {
    for (const token of [...live]) {
      const res = await restClient(w.h.url, token).get('/v1/buyer/session');
      if (res.status === 200) answered++;
      else {
        assertLimited(res);
        live.delete(token);
      }
    }
  }
  assert.equal(live.size, 0, 'every session ends refused');
  return answered;
}

test('the sessions a buyer mints share one budget: scope_buyer_session × 4 does not multiply it', async () => {
  const shop = await merchantShop(w.h, { discoverable: true });
  const email = newEmail();
  const full = await signIn(w, email);
  const scoped: string[] = [];
  for (let i = 0; i < 4; i++) {
    const scope = await restClient(w.h.url, full).post('/v1/buyer/session-scopes', { merchantId: shop.shopId });
    scoped.push(must(scope, 201).token);
  }
  // Four of the buyer's requests were the scopes; the rest of one budget is all five sessions get together.
  const answered = await spend([full, ...scoped]);
  assert.equal(answered, BUDGET - 4, `answered ${answered} (a budget per session: up to ${5 * BUDGET - 4})`);
  // A new sign-in of the same buyer gets no new budget either.
  assertLimited(await restClient(w.h.url, await signIn(w, email)).get('/v1/buyer/session'));

  // Bounded sessions minted by a shop for that address have a budget per buyer and shop, not the buyer's own: a
  // merchant cannot spend it, and minting more of them does not multiply theirs.
  const other = await merchantShop(w.h);
  const merchantApi = restClient(w.h.url, other.apiKey);
  const mint = () => merchantApi.post('/v1/integration/buyer-sessions', { merchantId: other.shopId, email });
  const bounded = async () => must(await mint(), 201).token;
  const b1 = await bounded();
  const b2 = await bounded();
  assert.equal(await spend([b1, b2]), BUDGET);
  // Another buyer is not affected.
  assert.equal((await restClient(w.h.url, await signIn(w, newEmail())).get('/v1/buyer/session')).status, 200);
});
