import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { assertAccessible, focusIs, tabTo } from '../support/browser.ts';
import { createAgent, newEmail, openFromNav, signIn, worldPerFile } from './flows.ts';
import { codeIn } from '../support/smtp.ts';

const w = worldPerFile();

test('a buyer creates an agent with the keyboard alone after entering the emailed code, and sees its credential once', async () => {
  const page = await w.browser.page();
  const email = newEmail();
  await signIn(w, page, email);

  await tabTo(page, 'agent-name');
  await page.keyboard.type('Concert helper');
  await page.keyboard.press('Enter');
  await focusIs(page, 'agent-code');
  await page.locator('#status', { hasText: `We e-mailed a 6-digit code to ${email}` }).waitFor();
  const message = w.mail.last(email);
  assert.match(message.text, /create an agent/);
  const code = page.locator('#agent-code');
  assert.equal(await code.getAttribute('inputmode'), 'numeric');
  assert.equal(await code.getAttribute('autocomplete'), 'one-time-code');
  await page.keyboard.type(codeIn(message));
  await page.keyboard.press('Enter');

  await focusIs(page, 'new-credential');
  const token = await page.locator('#new-credential-value').inputValue();
  assert.match(token, /^tag_/);
  assert.equal(await page.getByLabel('Credential for Concert helper').inputValue(), token);
  await page
    .getByRole('row', { name: /Concert helper/ })
    .getByText('Active')
    .waitFor();
  await assertAccessible(page);
  await page.screenshot({ path: join(w.browser.shotDir, 'agents-credential.png'), fullPage: true });

  // The credential works as a bearer, and is never shown again.
  // (An agent reads only discoverable shops and those it holds a permission at, so it lists its own orders here.)
  const res = await fetch(`${w.h.url}/v1/ticketing/orders`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(res.status, 200);
  assert.deepEqual((await res.json()).orders, []);
  await tabTo(page, 'dismiss-credential');
  await page.keyboard.press('Enter');
  await focusIs(page, 'agents-list-title');
  assert.equal(await page.locator('#new-credential-value').inputValue(), '');
  await openFromNav(page, 'Saved cards', /\/buyer\/cards/);
  await openFromNav(page, 'Agents', /\/buyer\/agents/);
  await page.getByRole('row', { name: /Concert helper/ }).waitFor();
  assert.equal(await page.locator('#new-credential').isHidden(), true);
  assert.ok(!(await page.content()).includes(token), 'the credential is not on the page any more');
  assert.deepEqual(w.browser.problems, []);
});

test('a wrong code shows an accessible error on the code field and the agent is not created', async () => {
  const page = await w.browser.page();
  const email = newEmail();
  await signIn(w, page, email);
  await page.getByLabel('Agent name').fill('Never made');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.locator('#agent-code-step:not([hidden])').waitFor();
  const right = codeIn(w.mail.last(email));
  const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, '0');
  await page.getByLabel('6-digit code').fill(wrong);
  await page.getByRole('button', { name: 'Create agent' }).click();

  await focusIs(page, 'error-summary');
  const summary = page.locator('#error-summary');
  assert.match(await summary.innerText(), /There is a problem\s+The code is not correct\. You have 4 more tries\./);
  const input = page.locator('#agent-code');
  assert.equal(await input.getAttribute('aria-invalid'), 'true');
  assert.match((await input.getAttribute('aria-describedby')) ?? '', /agent-code-error/);
  assert.equal(await page.locator('#agent-code-error').innerText(), 'The code is not correct. You have 4 more tries.');
  await page.getByRole('link', { name: 'The code is not correct. You have 4 more tries.' }).click();
  await focusIs(page, 'agent-code');
  assert.equal(await page.locator('#agents-empty').isVisible(), true);
  await assertAccessible(page);
  await page.screenshot({ path: join(w.browser.shotDir, 'agents-wrong-code.png'), fullPage: true });

  // The right code still works (the wrong one only used up an attempt), and the error is cleared.
  await page.getByLabel('6-digit code').fill(right);
  await page.getByRole('button', { name: 'Create agent' }).click();
  await page.locator('#new-credential:not([hidden])').waitFor();
  assert.equal(await page.locator('#error-summary').isHidden(), true);
  assert.equal(await input.getAttribute('aria-invalid'), null);
});

test('a buyer pauses, resumes and deletes an agent; focus follows each action', async () => {
  const page = await w.browser.page();
  const email = newEmail();
  await signIn(w, page, email);
  const token = await createAgent(w, page, email, 'Ticket bot');
  const row = page.getByRole('row', { name: /Ticket bot/ });

  await page.getByRole('button', { name: 'Pause Ticket bot' }).click();
  await row.getByText('Paused').waitFor();
  await page.locator('#status', { hasText: 'Ticket bot is paused.' }).waitFor();
  await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Resume Ticket bot');
  const refused = await fetch(`${w.h.url}/v1/catalog/shops/${w.shopId}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(refused.status, 401);

  await page.keyboard.press('Enter');
  await row.getByText('Active').waitFor();
  await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Pause Ticket bot');

  await page.getByRole('button', { name: 'Delete Ticket bot' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete Ticket bot?' });
  await dialog.waitFor();
  await assertAccessible(page);
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Delete Ticket bot');
  await page.getByRole('button', { name: 'Delete Ticket bot' }).click();
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await page.locator('#status', { hasText: 'Ticket bot was deleted.' }).waitFor();
  await page.locator('#agents-empty:not([hidden])').waitFor();
  await focusIs(page, 'agents-list-title');
});
