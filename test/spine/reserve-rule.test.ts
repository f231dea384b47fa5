/**
 * The reserve rule is one (issue #33, 1): the batched reserve of REST, MCP and A2A checks a quote in the order the
 * quote and the unbatched reserve (ACP, purchase_initiate) do: the tier still offered, then its restrictions.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { must, shopWithTier, startSpineHarness } from '../support/spine.ts';
import { SURFACES } from '../support/surfaces.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

for (const surface of SURFACES) {
  test(`a retired tier whose sale ended is tier_retired at reserve, as at quote, over ${surface.name}`, async () => {
    const onSaleEnd = new Date(h.clock.now().getTime() + 5 * 60_000).toISOString();
    const s = await shopWithTier(h, { restrictions: { onSaleEnd } });
    const q = must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 }), 201);
    must(await s.api.post(`/v1/integration/tiers/${s.tierId}/retire`, {}), 200);
    h.clock.advance(6 * 60_000); // the sale window has closed too; the quote (15 min) has not expired
    const quoteAgain = await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 });
    assert.equal(quoteAgain.body.code, 'tier_retired');
    const { call, done } = await surface.connect(h, s.apiKey);
    try {
      const res = await call('reserve', { quoteId: q.quoteId }, { idempotencyKey: randomUUID() });
      assert.equal(res.ok ? 'ok' : res.code, 'tier_retired');
    } finally {
      await done();
    }
    assert.equal((await assertInvariant(h.db, s.poolId)).held, 0);
  });
}
