/**
 * The console's discount-code view in headless Chromium (issue #37, 2): the owner sees the shop's codes with their
 * discount and uses, creates a code with the form (a taken text is refused at its field), disables one with its
 * button, changes a code's window and tiers with the edit form, and the view passes axe at 1280 px and at 390 px
 * without horizontal scroll.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertAccessible } from '../support/browser.ts';
import { must } from '../support/buyers.ts';
import { consoleBrowserSession, noAxeViolations } from '../support/console-browser.ts';

const s = consoleBrowserSession({});

test('the owner lists, creates and disables discount codes, and the view passes axe at 390 px', async () => {
  must(
    await s.m.api.post('/v1/integration/discount-codes', {
      merchantId: s.m.shopId,
      code: 'EARLYBIRD',
      kind: 'percent',
      percentOff: 15,
      maxUses: 50,
    }),
    201,
  );
  const page = await s.browser.page();
  await page.setViewportSize({ width: 1280, height: 900 });
  await s.signIn(page);

  await page.getByRole('link', { name: 'Discount codes' }).click();
  await page.locator('main[data-view="discount-codes"]').waitFor();
  const rows = page.locator('main table tbody tr');
  await rows.first().waitFor();
  assert.match((await rows.first().textContent()) ?? '', /EARLYBIRD.*15 %.*0 \/ 50.*Active/);
  await noAxeViolations(page, 'discount codes at 1280 px');
  await assertAccessible(page);

  await page.getByLabel('Code', { exact: true }).fill('earlybird');
  await page.getByLabel('Percent off (1 to 100)').fill('10');
  await page.getByRole('button', { name: 'Create code' }).click();
  await page.locator('#discount-code-error', { hasText: 'Check this value.' }).waitFor();

  await page.getByLabel('Code', { exact: true }).fill('vip-5');
  await page.getByLabel('Kind').selectOption('fixed');
  await page.getByLabel('Amount off').fill('5');
  await page.getByRole('button', { name: 'Create code' }).click();
  await page.locator('#discount-create-feedback', { hasText: 'VIP-5 was created.' }).waitFor();
  await page.locator('main table tbody tr', { hasText: 'VIP-5' }).waitFor();

  await page.getByRole('button', { name: 'Disable EARLYBIRD' }).click();
  await page.locator('#discount-toggle-feedback', { hasText: 'EARLYBIRD is disabled.' }).waitFor();
  await page.locator('main table tbody tr', { hasText: 'EARLYBIRD' }).getByText('Disabled').waitFor();
  const listed = must(await s.m.api.get(`/v1/integration/discount-codes?merchantId=${s.m.shopId}`), 200);
  assert.deepEqual(
    listed.codes
      .map((c: { code: string; disabled: boolean; amountOffMinor: number | null }) => [
        c.code,
        c.disabled,
        c.amountOffMinor,
      ])
      .sort(),
    [
      ['EARLYBIRD', true, null],
      ['VIP-5', false, 500],
    ],
  );

  // The edit form changes VIP-5's window and tiers.
  await page.getByLabel('Code to change').selectOption({ label: 'VIP-5' });
  await page.getByLabel('Valid from (empty: now)').fill('2030-01-01T10:00');
  await page.getByLabel('Valid until (empty: no end)').fill('2030-02-01T10:00');
  await page.getByRole('checkbox').first().check();
  await page.getByRole('button', { name: 'Save code' }).click();
  await page.locator('#discount-edit-feedback', { hasText: 'VIP-5 was saved.' }).waitFor();
  const vip = must(await s.m.api.get(`/v1/integration/discount-codes?merchantId=${s.m.shopId}`), 200).codes.find(
    (c: { code: string }) => c.code === 'VIP-5',
  );
  assert.equal(vip.tierIds.length, 1);
  assert.ok(vip.startsAt.startsWith('2030-01-01') && vip.endsAt.startsWith('2030-02-01'), JSON.stringify(vip));
  await noAxeViolations(page, 'discount code edit at 1280 px');

  await page.setViewportSize({ width: 390, height: 900 });
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(wide <= 390, `the discount codes at 390 px are ${wide} px wide`);
  await noAxeViolations(page, 'discount codes at 390 px');
  // The one refused create (the taken text) is the only failed request.
  assert.deepEqual(s.problems(), ['Failed to load resource: the server responded with a status of 409 (Conflict)']);
});
