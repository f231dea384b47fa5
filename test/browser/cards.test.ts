import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { assertAccessible, focusIs } from './browser.ts';
import { enterEmailedCode, newEmail, openFromNav, signIn, startWorld, type World } from './flows.ts';

let w: World;
before(async () => {
  w = await startWorld();
});
after(async () => {
  await w?.close();
});

const FRAME = 'iframe[title="Card details form from the payment provider"]';

/** A new buyer, signed in, on Saved cards with the provider's card form opened; `number` is its card-number field. */
async function openCardForm() {
  const page = await w.browser.page();
  const email = newEmail();
  await signIn(w, page, email);
  await openFromNav(page, 'Saved cards', /\/buyer\/cards/);
  await page.getByRole('button', { name: 'Add a card' }).click();
  return { page, email, number: page.frameLocator(FRAME).getByLabel('Card number') };
}

test('a buyer saves a card typed into the provider’s framed form, after the emailed code', async () => {
  const page = await w.browser.page();
  const email = newEmail();
  await signIn(w, page, email);
  await openFromNav(page, 'Saved cards', /\/buyer\/cards/);
  await page.locator('#cards-empty:not([hidden])').waitFor();
  await page.getByRole('button', { name: 'Add a card' }).click();

  const frame = page.frameLocator(FRAME);
  const number = frame.getByLabel('Card number');
  await number.waitFor();
  const src = await page.locator(FRAME).getAttribute('src');
  assert.match(src ?? '', /\/sandbox\/card-form\?setup=cset_/);
  await assertAccessible(page);
  await page.screenshot({ path: join(w.browser.shotDir, 'cards-frame.png'), fullPage: true });
  // Typed inside the provider's frame: the card number never reaches the page or the API.
  await number.pressSequentially('4242 4242 4242 4242');
  await number.press('Enter');

  await page.locator('#save-card-form:not([hidden])').waitFor();
  await focusIs(page, 'card-cap');
  assert.equal(await page.locator('#card-ready').innerText(), 'Visa ending in 4242 is ready to save.');
  assert.equal(await page.locator(FRAME).count(), 0, 'the frame is gone once it answered');
  await page.getByLabel('Spending cap per charge (EUR)').fill('150');
  await enterEmailedCode(w, page, email, 'card');
  await page.getByRole('button', { name: 'Save card' }).click();

  await page.locator('#status', { hasText: 'Visa ending in 4242 was saved.' }).waitFor();
  await focusIs(page, 'cards-list-title');
  const row = page.getByRole('row', { name: /Visa ending in 4242/ });
  await row.waitFor();
  assert.match(await row.innerText(), /€150\.00/);
  assert.match(await row.innerText(), /Org 1 Shop/);
  await assertAccessible(page);
  await page.screenshot({ path: join(w.browser.shotDir, 'cards.png'), fullPage: true });
  assert.ok(!(await page.content()).includes('4242 4242'), 'no card number in our page');
  assert.deepEqual(w.browser.problems, []);
});

test('a message that does not come from the provider’s frame is ignored', async () => {
  const { page, number } = await openCardForm();
  await number.waitFor();
  // Same origin as the form, but not from its window: refused by the event.source check.
  // Our listener was added first, so it has run by the time this one sees the message.
  await page.evaluate(
    () =>
      new Promise<void>((ok) => {
        window.addEventListener('message', () => ok(), { once: true });
        window.postMessage({ type: 'sandbox.payment_method', paymentMethod: 'pm_sandbox_visa', scheme: 'visa', last4: '4242' }, '*');
      }),
  );
  assert.doesNotMatch(await page.locator('#status').innerText(), /Checking the card/);
  assert.equal(await page.locator('#save-card-form').isHidden(), true);
  assert.equal(await page.locator(FRAME).count(), 1);
  await number.fill('5555 5555 5555 4444');
  await number.press('Enter');
  await page.locator('#card-ready', { hasText: 'Mastercard ending in 4444 is ready to save.' }).waitFor();
});

test('a card the provider cannot prepare for later charges is explained, and another card can be used', async () => {
  const { page, number } = await openCardForm();
  await number.fill('4000 0000 0000 0069');
  await number.press('Enter');
  await focusIs(page, 'error-summary');
  assert.match(await page.locator('#error-summary').innerText(), /This card cannot be used for later charges\. Use another card\./);
  assert.equal(await page.locator('#save-card-form').isHidden(), true);
  await number.fill('5555 5555 5555 4444');
  await number.press('Enter');
  await page.locator('#card-ready', { hasText: 'Mastercard ending in 4444 is ready to save.' }).waitFor();
  assert.equal(await page.locator('#error-summary').isHidden(), true);
});

test('a spending cap that is not an amount is refused before any code is sent', async () => {
  const { page, email, number } = await openCardForm();
  await number.fill('4242424242424242');
  await number.press('Enter');
  await page.locator('#save-card-form:not([hidden])').waitFor();
  await page.getByLabel('Spending cap per charge (EUR)').fill('lots');
  const before = w.mail.count(email);
  await page.getByRole('button', { name: 'Continue' }).click();
  await focusIs(page, 'error-summary');
  assert.equal(await page.locator('#card-cap-error').innerText(), 'Enter the spending cap as an amount, like 150.00');
  assert.equal(await page.locator('#card-code-step').isHidden(), true);
  assert.equal(w.mail.count(email), before);
});
