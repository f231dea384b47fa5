/**
 * The console's settings views in headless Chromium (issue #34): API keys, team, embed origins, webhooks with each
 * delivery's request and response, payment provider, attested consent and check-in, through the real server. An owner
 * creates a key (its token shown once) and revokes it by keyboard through the danger confirmation; the only owner is
 * offered neither demotion nor removal; the webhook form's hint names the setting loopback URLs need; every view passes
 * axe at 1280 px and at 390 px without horizontal scroll; an invited integrator is never offered the owner's scopes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { assertAccessible } from '../support/browser.ts';
import { consoleBrowserSession, go, noAxeViolations } from '../support/console-browser.ts';

const s = consoleBrowserSession({ receiver: true });

/** Opens the console from the newest e-mailed link of `kind` to `email`, waiting for `view`. */
async function openLink(page: Page, email: string, kind: 'verify' | 'accept', view: string): Promise<void> {
  const hit = new RegExp(`/console/${kind}#token=[\\w-]+`).exec(s.w.box.last(email).text);
  assert.ok(hit, `a /console/${kind} link in the mail to ${email}`);
  await page.goto(`${s.w.h.url}${hit[0]}`);
  await page.locator(`main[data-view="${view}"]`).waitFor();
}

const shopViews = (shopId: string): [string, string][] => [
  [`/console/shops/${shopId}/check-in`, 'check-in'],
  [`/console/shops/${shopId}/exports`, 'exports'],
  [`/console/shops/${shopId}/webhooks`, 'webhooks'],
  [`/console/shops/${shopId}/embed-origins`, 'embed-origins'],
  [`/console/shops/${shopId}/payment-provider`, 'payment-provider'],
];
const organizationViews: [string, string][] = [
  ['/console/shops', 'shops'],
  ['/console/api-keys', 'api-keys'],
  ['/console/team', 'team'],
  ['/console/attested-consent', 'attested-consent'],
  ['/console/audit-log', 'audit-log'],
];

test('an owner manages keys, team and webhooks; a key is revoked by keyboard after a danger confirmation', async () => {
  const page = await s.browser.page();
  await page.setViewportSize({ width: 1280, height: 900 });
  await s.signIn(page);

  // API keys: create one (its token shown once), then revoke it with the keyboard only.
  await page.getByRole('link', { name: 'API keys' }).click();
  await page.locator('main[data-view="api-keys"]').waitFor();
  await page.getByLabel('Name', { exact: true }).fill('Door scanner');
  await page.getByRole('checkbox', { name: /merchant:read/ }).check();
  assert.equal(await page.getByRole('checkbox', { name: /merchant:admin/ }).count(), 1, 'an owner may grant admin');
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.locator('#key-create-feedback', { hasText: 'Key Door scanner created.' }).waitFor();
  assert.match((await page.locator('#new-key [data-secret]').textContent()) ?? '', /^tsk_/);
  await noAxeViolations(page, 'api-keys after create');

  const revoke = page.getByRole('button', { name: 'Revoke Door scanner' });
  await revoke.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Revoke the key Door scanner?' });
  await dialog.waitFor();
  const confirm = dialog.getByRole('button', { name: 'Revoke the key' });
  assert.match((await confirm.getAttribute('class')) ?? '', /\bdanger\b/, 'the confirmation is styled as danger');
  await noAxeViolations(page, 'api-keys revoke confirmation');
  await confirm.focus();
  await page.keyboard.press('Enter');
  await dialog.waitFor({ state: 'hidden' });
  await page.getByRole('status').filter({ hasText: 'Key Door scanner revoked.' }).waitFor();
  await page.locator('td', { hasText: 'Revoked' }).waitFor();
  assert.equal(await revoke.count(), 0, 'a revoked key offers no revoke');

  // Team: the only owner is offered neither demotion nor removal; an invitation is withdrawn after confirming.
  await page.getByRole('link', { name: 'Team' }).click();
  await page.locator('main[data-view="team"]').waitFor();
  await page.getByText('The only owner').waitFor();
  assert.equal(await page.getByRole('button', { name: `Remove ${s.ownerEmail}` }).count(), 0);
  assert.equal(await page.getByRole('button', { name: `Make ${s.ownerEmail} an integrator` }).count(), 0);
  await page.getByLabel('E-mail', { exact: true }).fill('not-an-address');
  await page.getByRole('button', { name: 'Send invitation' }).click();
  const email = page.getByLabel('E-mail', { exact: true });
  assert.equal(await email.getAttribute('aria-invalid'), 'true');
  assert.match((await email.getAttribute('aria-describedby')) ?? '', /invite-email-error/, 'the error is tied');
  await email.fill('someone@example.test');
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await page.locator('#invite-feedback', { hasText: 'Invitation sent to someone@example.test.' }).waitFor();
  await page.getByRole('button', { name: 'Withdraw the invitation to someone@example.test' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Withdraw the invitation' }).click();
  await page.getByText('No pending invitations.').waitFor();

  // Shops: one is created, then deleted after a danger confirmation.
  await go(page, '/console/shops', 'shops');
  await page.getByLabel('Name', { exact: true }).fill('Summer stage');
  await page.getByRole('button', { name: 'Create shop' }).click();
  await page.locator('#shop-create-feedback', { hasText: 'Shop Summer stage created' }).waitFor();
  await page.getByRole('button', { name: 'Delete Summer stage' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete the shop' }).click();
  await page.getByRole('status').filter({ hasText: 'Shop Summer stage deleted.' }).waitFor();
  await page.getByRole('link', { name: 'Summer stage' }).waitFor({ state: 'detached' });

  // Webhooks: the hint tells the truth; subscribe (secret once), send a test event, read its request and response.
  await go(page, `/console/shops/${s.m.shopId}/webhooks`, 'webhooks');
  assert.match((await page.locator('#webhook-url-hint').textContent()) ?? '', /WEBHOOK_ALLOW_LOOPBACK=true/);
  await page.getByLabel('URL').fill(`${s.rx.url}/console-hook`);
  await page.getByRole('checkbox', { name: 'order.completed' }).check();
  await page.getByRole('button', { name: 'Create webhook' }).click();
  await page.locator('#webhook-create-feedback', { hasText: 'created' }).waitFor();
  assert.match((await page.locator('#new-webhook [data-secret]').textContent()) ?? '', /^whsec_/);
  await page.getByRole('button', { name: `Send a test event to ${s.rx.url}/console-hook` }).click();
  await page.locator('#webhook-test-feedback', { hasText: 'A test event is on its way' }).waitFor();
  await s.w.h.app.services.webhooks.dispatchOnce();
  await page.getByRole('link', { name: `${s.rx.url}/console-hook` }).click();
  await page.locator('main[data-view="webhook"]').waitFor();
  await page.getByRole('button', { name: /^Request and response of / }).click();
  await page.locator('#delivery-detail-title').waitFor();
  const sent = s.rx.received.find((r) => r.path === '/console-hook');
  assert.ok(sent, 'the receiver got the test event');
  const body = JSON.parse((await page.locator('.delivery-detail pre').textContent()) ?? '') as unknown;
  assert.deepEqual(body, JSON.parse(sent.body), 'the console shows the body as sent');
  await page.locator('.delivery-detail', { hasText: 'HTTP 200' }).waitFor();
  await noAxeViolations(page, 'webhook deliveries');
  await page.setViewportSize({ width: 390, height: 900 });
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(wide <= 390, `a delivery's request and response at 390 px is ${wide} px wide`);
  await noAxeViolations(page, 'webhook deliveries at 390 px');
  await page.setViewportSize({ width: 1280, height: 900 });
  await assertAccessible(page);
  // A reload keeps the session and this detail view (the cookie session, the view's URL).
  await page.reload();
  await page.getByRole('heading', { level: 1, name: `Deliveries to ${s.rx.url}/console-hook` }).waitFor();

  // Check-in: the event's offline list downloads as the scanner's JSON.
  await go(page, `/console/shops/${s.m.shopId}/check-in`, 'check-in');
  const [list] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download the offline list of Concert' }).click(),
  ]);
  assert.equal(list.suggestedFilename(), `check-in-${s.m.eventId}.json`);
  const offline = JSON.parse(await readFile((await list.path())!, 'utf8')) as { tickets: unknown[]; keys: unknown[] };
  assert.ok(
    Array.isArray(offline.tickets) && offline.keys.length > 0,
    'the list holds the tickets and the keys to verify them',
  );

  // Exports: the orders CSV downloads, UTF-8 with a BOM.
  await go(page, `/console/shops/${s.m.shopId}/exports`, 'exports');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download CSV' }).click(),
  ]);
  const csv = await readFile((await download.path())!, 'utf8');
  assert.ok(csv.startsWith('\uFEFForder_id,'), csv.slice(0, 40));
  await page.locator('#export-feedback', { hasText: 'is downloading' }).waitFor();

  // The audit log shows each of these writes, filtered by operation.
  await go(page, '/console/audit-log', 'audit-log');
  for (const tool of ['create_api_key', 'revoke_api_key', 'create_shop', 'delete_shop', 'create_webhook'])
    await page
      .locator('main td code', { hasText: new RegExp(`^${tool}$`) })
      .first()
      .waitFor();
  await page.getByLabel('Who').selectOption({ label: `Me (${s.ownerEmail})` });
  await page.getByLabel('Operation').selectOption('revoke_api_key');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.locator('main td code', { hasText: /^create_api_key$/ }).waitFor({ state: 'detached' });
  assert.equal(await page.locator('main td code', { hasText: /^revoke_api_key$/ }).count(), 1);
  assert.deepEqual(s.problems(), []);
  await page.close();
});

test('axe, and no sideways scroll, on every view at 1280 and 390 px; an integrator gets no owner scope', async () => {
  const page = await s.browser.page();
  await page.setViewportSize({ width: 1280, height: 900 });
  await s.signIn(page);
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    for (const [path, view] of [...shopViews(s.m.shopId), ...organizationViews]) {
      await go(page, path, view);
      await noAxeViolations(page, `${view} at ${width} px`);
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(wide <= width, `${view} at ${width} px is ${wide} px wide`);
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  // In German: the view's own text, and still no axe violation; then back to English for the rest.
  await go(page, `/console/shops/${s.m.shopId}/payment-provider`, 'payment-provider');
  await page.getByLabel('Language').selectOption('de');
  await page.getByRole('heading', { level: 1, name: 'Zahlungsanbieter' }).waitFor();
  await page.locator('td', { hasText: 'in Verwendung: der Anbieter zum Testen' }).waitFor();
  await noAxeViolations(page, 'payment-provider in German');
  await page.getByLabel('Sprache').selectOption('en');
  await page.getByRole('heading', { level: 1, name: 'Payment provider' }).waitFor();
  await go(page, '/console/team', 'team');
  const integratorEmail = `integrator-${Date.now()}@example.test`;
  await page.getByLabel('E-mail', { exact: true }).fill(integratorEmail);
  await page.getByLabel('Role').selectOption('integrator');
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await page.locator('#invite-feedback', { hasText: `Invitation sent to ${integratorEmail}.` }).waitFor();
  await page.close();

  const integrator = await s.browser.page();
  await openLink(integrator, integratorEmail, 'accept', 'overview');
  assert.equal(await integrator.getByRole('link', { name: 'Team' }).count(), 0, 'no team for an integrator');
  await integrator.getByRole('link', { name: 'API keys' }).click();
  await integrator.locator('main[data-view="api-keys"]').waitFor();
  await integrator.getByRole('checkbox', { name: /merchant:read/ }).waitFor();
  assert.equal(await integrator.getByRole('checkbox', { name: /merchant:admin/ }).count(), 0);
  assert.equal(await integrator.getByRole('checkbox', { name: /mandates:attest/ }).count(), 0);
  await go(integrator, '/console/shops', 'shops');
  assert.equal(await integrator.getByRole('button', { name: /^Delete / }).count(), 0, 'no shop deletion');
  await go(integrator, '/console/team', 'not-found');
  assert.deepEqual(s.problems(), []);
});
