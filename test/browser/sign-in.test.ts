import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { assertAccessible, focusIs, tabTo } from '../support/browser.ts';
import { linkIn, newEmail, requestLink, worldPerFile } from './flows.ts';

const w = worldPerFile();

test('a buyer signs in by magic link, keyboard only, and lands on their agents page with a full session', async (t) => {
  const page = await w.browser.page();
  const email = newEmail();
  await page.goto(`${w.h.url}/buyer/sign-in?merchantId=${w.shopId}`);
  await page.locator('main[data-ready]').waitFor();
  await assertAccessible(page);
  await tabTo(page, 'email');
  await page.keyboard.type(email);
  await page.keyboard.press('Enter');
  await focusIs(page, 'sign-in-sent');
  assert.match(
    await page.locator('#sign-in-sent-text').innerText(),
    new RegExp(`sent a sign-in link to ${email.replace(/[.]/g, '\\.')}`),
  );
  await page.screenshot({ path: join(w.browser.shotDir, 'sign-in.png'), fullPage: true });
  if (process.env.TESSERA_KEEP_SCREENSHOTS) t.diagnostic(`screenshots: ${w.browser.shotDir}`);

  const link = linkIn(w.mail.last(email));
  assert.match(link, /\/buyer\/verify\?lang=en#token=/);
  await page.goto(link);
  await page.waitForURL(/\/buyer\/agents\?lang=en$/);
  await page.locator('#session-who', { hasText: `Signed in as ${email} for` }).waitFor();
  await page.locator('#status', { hasText: `You are signed in as ${email}.` }).waitFor();
  assert.ok(!page.url().includes('token'), 'the one-time token is gone from the address bar');
  await page.locator('#create-agent:not([hidden])').waitFor();
  await page.locator('#agents-empty:not([hidden])').waitFor();
  await assertAccessible(page);
  await page.screenshot({ path: join(w.browser.shotDir, 'agents-signed-in.png'), fullPage: true });
  assert.deepEqual(w.browser.problems, []);
});

test('a used sign-in link shows an accessible explanation and a way to ask again', async () => {
  const page = await w.browser.page();
  const email = newEmail();
  const link = await requestLink(w, page, email);
  await page.goto(link);
  await page.waitForURL(/\/buyer\/agents/);
  const again = await w.browser.page();
  await again.goto(link);
  await again.locator('#verify-failed:not([hidden])').waitFor();
  await focusIs(again, 'verify-failed-title');
  assert.match(await again.locator('#verify-failed-text').innerText(), /expired or was already used/);
  assert.equal(await again.getByRole('link', { name: 'Ask for a new sign-in link' }).count(), 1);
  await assertAccessible(again);
});

test('an address in the wrong format is refused in the error summary, linked to the field', async () => {
  const page = await w.browser.page();
  await page.goto(`${w.h.url}/buyer/sign-in`);
  await page.locator('main[data-ready]').waitFor();
  await page.getByLabel('E-mail address').fill('not-an-address');
  await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
  await focusIs(page, 'error-summary');
  assert.equal(await page.locator('#email').getAttribute('aria-invalid'), 'true');
  assert.match((await page.locator('#email').getAttribute('aria-describedby')) ?? '', /email-error/);
  await page.getByRole('link', { name: /Enter an e-mail address in the right format/ }).click();
  await focusIs(page, 'email');
});
