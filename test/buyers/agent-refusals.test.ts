/** An agent's expired or revoked permission refuses it with its own code on every surface (REST, MCP, A2A). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { assertInvariant } from '../support/invariant.ts';
import { restClient } from '../support/rest.ts';
import { SURFACES, type Caller } from '../support/surfaces.ts';
import { buyerWithAgent, merchantShop, must } from '../support/buyers.ts';
import { worldPerFile } from '../support/world-per-file.ts';

const w = worldPerFile();

/** quote → reserve → confirm; the first refusal, or the confirm outcome. */
async function buyOver(call: Caller, tierId: string) {
  const q = await call('quote', { tierId, quantity: 1 });
  if (!q.ok) return q;
  const r = await call('reserve', { quoteId: q.output.quoteId }, { idempotencyKey: randomUUID() });
  if (!r.ok) return r;
  return call('confirm', { id: r.output.reservation.id }, { idempotencyKey: randomUUID() });
}

for (const surface of SURFACES) {
  test(`over ${surface.name}, an expired or revoked permission refuses the agent, holding nothing`, async () => {
    const shop = await merchantShop(w.h, { capacity: 5 });
    const expiring = await buyerWithAgent(w, shop, {
      expiresAt: new Date(w.h.clock.now().getTime() + 5 * 60_000).toISOString(),
    });
    const revoked = await buyerWithAgent(w, shop);
    must(
      await restClient(w.h.url, revoked.session).post(`/v1/buyer/permissions/${revoked.permission.id}/revoke`, {
        reason: 'no longer',
      }),
      200,
    );

    const a = await surface.connect(w.h, expiring.agentToken);
    const b = await surface.connect(w.h, revoked.agentToken);
    try {
      const before = await buyOver(a.call, shop.tierId);
      assert.ok(before.ok, `inside its permission the agent buys: ${JSON.stringify(before)}`);
      w.h.clock.advance(5 * 60_000);
      const expired = await buyOver(a.call, shop.tierId);
      assert.equal(!expired.ok && expired.code, 'permission_expired');
      const gone = await buyOver(b.call, shop.tierId);
      assert.equal(!gone.ok && gone.code, 'permission_revoked');
    } finally {
      await a.done();
      await b.done();
    }
    assert.deepEqual(await assertInvariant(w.h.db, shop.poolId), { capacity: 5, available: 4, held: 0, sold: 1 });
  });
}
