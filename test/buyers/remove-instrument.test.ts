/**
 * remove_instrument (issue #34, the buyer pages' rough edges): a buyer removes a saved card over REST or MCP; it is no
 * longer listed nor charged, the permissions charging it are revoked, and another buyer's card is not found.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { restClient } from '../support/rest.ts';
import { callTool, mcpInMemory } from '../support/mcp.ts';
import { buy, buyerWithAgent, merchantShop, must, newEmail, saveCard, signIn } from '../support/buyers.ts';
import { worldPerFile } from '../support/world-per-file.ts';

const w = worldPerFile();

test('a buyer removes a saved card: no longer listed nor charged, its permissions revoked; others 404', async () => {
  const m = await merchantShop(w.h);
  const s = await buyerWithAgent(w, m);
  const buyer = restClient(w.h.url, s.session);
  const stranger = restClient(w.h.url, await signIn(w, newEmail(), m.shopId));
  const hidden = await stranger.delete(`/v1/buyer/instruments/${s.instrumentId}`);
  assert.equal(hidden.status, 404);
  assert.equal(hidden.body.code, 'instrument_not_found');

  assert.deepEqual(must(await buyer.delete(`/v1/buyer/instruments/${s.instrumentId}`), 200), {
    removed: true,
    revokedPermissions: 1,
  });
  assert.deepEqual(must(await buyer.get('/v1/buyer/instruments'), 200).instruments, []);
  const [permission] = must(await buyer.get('/v1/buyer/permissions'), 200).permissions;
  assert.equal(permission.revokedReason, 'card_removed');
  const refused = await buy(restClient(w.h.url, s.agentToken), m.tierId);
  assert.equal(refused.body.code, 'permission_revoked');
  assert.equal((await buyer.delete(`/v1/buyer/instruments/${s.instrumentId}`)).body.code, 'instrument_not_found');

  const other = await saveCard(w, s.session, s.email, 'pm_sandbox_mastercard');
  const mcp = await mcpInMemory(w.h, s.session);
  const removed = await callTool(mcp, 'remove_instrument', { id: other.id });
  assert.ok(removed.ok);
  assert.deepEqual(removed.output, { removed: true, revokedPermissions: 0 });
  await mcp.close();
  assert.deepEqual(must(await buyer.get('/v1/buyer/instruments'), 200).instruments, []);
});
