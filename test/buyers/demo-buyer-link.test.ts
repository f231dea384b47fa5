/**
 * The buyer link the `npm start` banner and the README give (issue #34, the buyer pages' rough edges): for the demo
 * shop, so the session it leads to can save a card and grant an agent a permission (one without a shop can do
 * neither: cards belong to a shop).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { demoBuyerSignInUrl, seedDemo } from '../../src/domain/merchants/demo-seed.ts';
import { restClient } from '../support/rest.ts';
import { createAgent, grant, must, newEmail, saveCard, signIn } from '../support/buyers.ts';
import { worldPerFile } from '../support/world-per-file.ts';

const w = worldPerFile();

test('the demo buyer link leads to a session that saves a card and grants a permission', async () => {
  const demo = await w.h.db.transaction((em) => seedDemo(em, w.h.clock.now()));
  const link = new URL(demoBuyerSignInUrl(w.h.url, demo));
  assert.equal(link.pathname, '/buyer/sign-in');
  const page = await fetch(link);
  assert.equal(page.status, 200);
  assert.match(await page.text(), new RegExp(`data-merchant-id="${demo.shopId}"`), 'the form signs in for the shop');
  // The page signs in for the shop its query names, as this call does.
  const merchantId = link.searchParams.get('merchantId');
  assert.equal(merchantId, demo.shopId);
  const email = newEmail();
  const session = await signIn(w, email, merchantId!);
  const card = await saveCard(w, session, email);
  const { agent } = await createAgent(w, session, email);
  const permission = await grant(w, session, email, agent.id, card.id);
  assert.equal(permission.permission?.instrumentId ?? permission.instrumentId, card.id);
  assert.equal(must(await restClient(w.h.url, session).get('/v1/buyer/permissions'), 200).permissions.length, 1);
});
