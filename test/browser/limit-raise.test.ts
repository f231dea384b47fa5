/**
 * The limit-raise page at 390 px: a signed-out buyer opens the URL an MCP host was elicited with, signs in by the
 * e-mailed link (which comes back to the request), sees what the agent asks for and approves it with the emailed code.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertAccessible, axeOn } from '../support/browser.ts';
import { restClient } from '../support/rest.ts';
import { codeIn, signInTokenIn } from '../support/smtp.ts';
import { linkIn, newEmail, worldPerFile } from './flows.ts';

const w = worldPerFile();

/** The body of a REST answer with the expected status. */
function ok<T = any>(res: { status: number; body: T }, status: number): T {
  assert.equal(res.status, status, JSON.stringify(res.body));
  return res.body;
}

/** A buyer (full session for the shop), a saved card, an agent and its permission, set up through the buyer API. */
async function buyerWithAgent(email: string) {
  const anon = restClient(w.h.url);
  ok(await anon.post('/v1/buyer/sign-in-links', { email, merchantId: w.shopId }), 202);
  const session = ok(await anon.post('/v1/buyer/sessions', { token: signInTokenIn(w.mail.last(email)) }), 201).token;
  const api = restClient(w.h.url, session);
  const code = async (purpose: string) => {
    const { challengeId } = ok(await api.post('/v1/buyer/verification-codes', { purpose }), 201);
    return { challengeId, code: codeIn(w.mail.last(email)) };
  };
  const setup = ok(await api.post('/v1/buyer/card-setups', {}), 201);
  ok(await api.post(`/v1/buyer/card-setups/${setup.setupId}/complete`, { paymentMethod: 'pm_sandbox_visa' }), 200);
  const card = ok(
    await api.post('/v1/buyer/instruments', {
      setupId: setup.setupId,
      spendingCapMinor: 100_000,
      ...(await code('save_card')),
    }),
    201,
  ).instrument;
  const agent = ok(await api.post('/v1/buyer/agents', { name: 'Gig scout', ...(await code('create_agent')) }), 201);
  const permission = ok(
    await api.post('/v1/buyer/permissions', {
      agentId: agent.agent.id,
      instrumentId: card.id,
      perPurchaseCapMinor: 5000,
      allowanceMinor: 10_000,
      windowHours: 24,
      expiresAt: new Date(w.h.clock.now().getTime() + 7 * 86_400_000).toISOString(),
      ...(await code('grant_permission')),
    }),
    201,
  );
  return { api, agentToken: agent.token as string, permissionId: permission.id as string };
}

test('a signed-out buyer opens an agent’s limit-raise URL at 390 px, signs in and approves it', async () => {
  const email = newEmail();
  const { api, agentToken, permissionId } = await buyerWithAgent(email);
  const asked = ok(
    await restClient(w.h.url, agentToken).post('/v1/ticketing/limit-raises', { permissionId, amountMinor: 8000 }),
    201,
  );
  const page = await w.browser.page();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(asked.url);
  await page.locator('main[data-ready] #limit-raise-sign-in:not([hidden])').waitFor();
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
  await page.locator('#limit-raise-sent:not([hidden])').waitFor();
  await page.goto(linkIn(w.mail.last(email)));
  await page.waitForURL(/\/buyer\/limit-raise\?request=lrr_/);
  const heading = page.getByRole('heading', { name: 'Gig scout asks for a higher limit at Org 1 Shop' });
  await heading.waitFor();
  const text = await page.locator('#limit-raise-request').innerText();
  assert.match(text, /Gig scout needs to spend €80\.00 on one purchase\./);
  assert.match(text, /Most per purchase: €50\.00 now, €80\.00 if you approve/);
  assert.match(text, /Most in total per period: €100\.00 now, €100\.00 if you approve/);
  await assertAccessible(page);
  const serious = (await axeOn(page).analyze()).violations.filter((v) => ['serious', 'critical'].includes(v.impact!));
  assert.deepEqual(
    serious.map((v) => v.id),
    [],
  );
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 390), 'no sideways scrolling');

  await page.getByRole('button', { name: 'Continue' }).click();
  await page.locator('#limit-raise-code-step:not([hidden])').waitFor();
  await page.locator('#limit-raise-code').fill(codeIn(w.mail.last(email)));
  await page.getByRole('button', { name: 'Approve the raise' }).click();
  await page.locator('#status', { hasText: 'You raised the limit.' }).waitFor();
  assert.equal(await page.locator('#limit-raise-form').isHidden(), true);
  const perms = ok(await api.get('/v1/buyer/permissions'), 200).permissions;
  assert.equal(perms.find((p: any) => p.id === permissionId).perPurchaseCapMinor, 8000);
  assert.deepEqual(w.browser.problems, []);
  await page.close();
});
