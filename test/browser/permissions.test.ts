import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { assertAccessible, focusIs } from '../support/browser.ts';
import { createAgent, enterEmailedCode, newEmail, openFromNav, saveCard, signIn, worldPerFile } from './flows.ts';

const w = worldPerFile();

test('a buyer grants an agent a permission after the emailed code, then revokes it with a reason', async () => {
  const page = await w.browser.page();
  const email = newEmail();
  await signIn(w, page, email);
  await openFromNav(page, 'Permissions', /\/buyer\/permissions/);
  await page.locator('#grant-need-agent:not([hidden])').waitFor();
  await page.locator('#grant-need-card:not([hidden])').waitFor();
  assert.equal(await page.locator('#grant-form').isHidden(), true);

  await openFromNav(page, 'Agents', /\/buyer\/agents/);
  await createAgent(w, page, email, 'Gig scout');
  await openFromNav(page, 'Saved cards', /\/buyer\/cards/);
  await saveCard(w, page, email, '4242 4242 4242 4242', '200');
  await openFromNav(page, 'Permissions', /\/buyer\/permissions/);
  await page.locator('#grant-form:not([hidden])').waitFor();

  await page.getByLabel('Agent', { exact: true }).selectOption({ label: 'Gig scout' });
  assert.match(await page.getByLabel('Card to charge').locator('option:checked').innerText(), /Visa ending in 4242/);
  await page.getByLabel('Most per purchase (EUR)').fill('80');
  await page.getByLabel('Most in total per period (EUR)').fill('150.50');
  await page.getByLabel('Period', { exact: true }).selectOption('168');
  await enterEmailedCode(w, page, email, 'grant');
  assert.match(w.mail.last(email).text, /grant an agent a permission/);
  await page.getByRole('button', { name: 'Give permission' }).click();

  await page.locator('#status', { hasText: 'Gig scout may now buy within the limits you set.' }).waitFor();
  await focusIs(page, 'permissions-list-title');
  const item = page.getByRole('article', { name: 'Gig scout' });
  await item.waitFor();
  const text = await item.innerText();
  assert.match(
    text,
    /Gig scout may spend €80\.00 per purchase and €150\.50 every week, charged to Visa ending in 4242\./,
  );
  assert.match(text, /Spent €0\.00 this period; €150\.50 left\./);
  assert.match(text, /Active/);
  await assertAccessible(page);
  await page.screenshot({ path: join(w.browser.shotDir, 'permissions.png'), fullPage: true });

  await item.getByRole('button', { name: 'Revoke the permission of Gig scout' }).click();
  const dialog = page.getByRole('dialog', { name: 'Revoke the permission of Gig scout?' });
  await dialog.waitFor();
  await dialog.getByLabel('Reason (optional)').fill('Going on holiday');
  await dialog.getByRole('button', { name: 'Revoke' }).click();
  await page.locator('#status', { hasText: 'The permission of Gig scout was revoked.' }).waitFor();
  await item.getByText('Revoked', { exact: true }).waitFor();
  assert.equal(await item.getByRole('button').count(), 0);

  // The name comes with the permission (agentName): a deleted agent's permission says so.
  await openFromNav(page, 'Agents', /\/buyer\/agents/);
  await page.getByRole('button', { name: 'Delete Gig scout' }).click();
  await page.getByRole('dialog', { name: 'Delete Gig scout?' }).getByRole('button', { name: 'Delete' }).click();
  await page.locator('#status', { hasText: 'Gig scout was deleted.' }).waitFor();
  await openFromNav(page, 'Permissions', /\/buyer\/permissions/);
  const orphan = page.getByRole('article', { name: 'Deleted agent' });
  await orphan.waitFor();
  assert.match(await orphan.innerText(), /Deleted agent may spend €80\.00 per purchase/);
  assert.equal(await page.getByRole('article', { name: 'Gig scout' }).count(), 0);
  assert.deepEqual(w.browser.problems, []);
});

test('limits that do not add up are refused next to their fields before a code is sent', async () => {
  const page = await w.browser.page();
  const email = newEmail();
  await signIn(w, page, email);
  await createAgent(w, page, email, 'Tiny budget');
  await openFromNav(page, 'Saved cards', /\/buyer\/cards/);
  await saveCard(w, page, email, '5555555555554444', '50');
  await openFromNav(page, 'Permissions', /\/buyer\/permissions/);
  await page.locator('#grant-form:not([hidden])').waitFor();
  await page.getByLabel('Most per purchase (EUR)').fill('100');
  await page.getByLabel('Most in total per period (EUR)').fill('20');
  const sent = w.mail.count(email);
  await page.getByRole('button', { name: 'Continue' }).click();
  await focusIs(page, 'error-summary');
  assert.equal(
    await page.locator('#grant-allowance-error').innerText(),
    'The total per period must be at least the most per purchase',
  );
  assert.equal(await page.locator('#grant-allowance').getAttribute('aria-invalid'), 'true');
  assert.equal(w.mail.count(email), sent);
  await assertAccessible(page);
});
