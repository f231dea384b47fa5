import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { restClient } from '../support/rest.ts';
import { codeIn } from '../support/smtp.ts';
import { assertAccessible, focusIs, tabTo } from '../support/browser.ts';
import { enterEmailedCode, linkIn, newEmail, openFromNav, saveCard, signIn, worldPerFile } from './flows.ts';

const w = worldPerFile();

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
        window.postMessage(
          { type: 'sandbox.payment_method', paymentMethod: 'pm_sandbox_visa', scheme: 'visa', last4: '4242' },
          '*',
        );
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
  assert.match(
    await page.locator('#error-summary').innerText(),
    /This card cannot be used for later charges\. Use another card\./,
  );
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

test('after the frame answered, “Use another card” discards that setup and frames the provider’s form again', async () => {
  const problems = w.browser.problems.length;
  const { page, email, number } = await openCardForm();
  await number.fill('4242 4242 4242 4242');
  await number.press('Enter');
  await page.locator('#card-ready', { hasText: 'Visa ending in 4242 is ready to save.' }).waitFor();
  await focusIs(page, 'card-cap');
  await tabTo(page, 'discard-card-setup');
  await page.keyboard.press('Enter');
  await page.locator('#status', { hasText: 'Enter another card in the payment provider’s form.' }).waitFor();
  assert.equal(await page.locator('#save-card-form').isHidden(), true);
  // A new setup: the discarded one (already answered with the Visa) would be resumed and reused otherwise.
  const again = page.frameLocator(FRAME).getByLabel('Card number');
  await again.fill('5555 5555 5555 4444');
  await again.press('Enter');
  await page.locator('#card-ready', { hasText: 'Mastercard ending in 4444 is ready to save.' }).waitFor();
  await page.getByLabel('Spending cap per charge (EUR)').fill('80');
  await enterEmailedCode(w, page, email, 'card');
  await page.getByRole('button', { name: 'Save card' }).click();
  await page.locator('#status', { hasText: 'Mastercard ending in 4444 was saved.' }).waitFor();
  await page.getByRole('row', { name: /Mastercard ending in 4444/ }).waitFor();
  assert.equal(await page.getByRole('row', { name: /Visa ending in 4242/ }).count(), 0);
  await assertAccessible(page);
  assert.deepEqual(w.browser.problems.slice(problems), []);
});

test('a card’s cap is raised after the emailed code and lowered without one, by keyboard, with accessible errors', async () => {
  const problems = w.browser.problems.length;
  const page = await w.browser.page();
  const email = newEmail();
  await signIn(w, page, email);
  await openFromNav(page, 'Saved cards', /\/buyer\/cards/);
  await saveCard(w, page, email, '4242 4242 4242 4242', '100');
  const id = (await page.getByRole('button', { name: 'Change cap of Visa ending in 4242' }).getAttribute('id'))!;
  const row = page.getByRole('row', { name: /Visa ending in 4242/ });
  await tabTo(page, id);
  await page.keyboard.press('Enter');
  await focusIs(page, 'cap-amount');
  assert.equal(await page.locator('#change-cap-title').innerText(), 'Change the spending cap of Visa ending in 4242');
  assert.match(await page.locator('#change-cap-current').innerText(), /The cap is €100\.00 per charge now\./);
  assert.equal(await page.locator('label[for="cap-amount"]').innerText(), 'New cap per charge (EUR)');
  await assertAccessible(page);

  // Raising: the first submit e-mails a code; a wrong code is explained next to the field.
  await page.keyboard.type('300');
  const sent = w.mail.count(email);
  await page.keyboard.press('Enter');
  await focusIs(page, 'cap-code');
  assert.equal(w.mail.count(email), sent + 1);
  const code = codeIn(w.mail.last(email));
  await page.keyboard.type(String((Number(code) + 1) % 1_000_000).padStart(6, '0'));
  await page.keyboard.press('Enter');
  await focusIs(page, 'error-summary');
  assert.equal(await page.locator('#cap-code-error').innerText(), 'The code is not correct. You have 4 more tries.');
  assert.equal(await page.locator('#cap-code').getAttribute('aria-invalid'), 'true');
  await tabTo(page, 'cap-code');
  await page.keyboard.press('Control+A');
  await page.keyboard.type(code);
  await page.keyboard.press('Enter');
  await page.locator('#status', { hasText: 'The spending cap of Visa ending in 4242 is now €300.00.' }).waitFor();
  await focusIs(page, id);
  assert.match(await row.innerText(), /€300\.00/);
  assert.equal(await page.locator('#change-cap').isHidden(), true);

  // Lowering: no code.
  await page.keyboard.press('Enter');
  await focusIs(page, 'cap-amount');
  assert.equal(await page.locator('#cap-code-step').isHidden(), true);
  await page.keyboard.type('50');
  await page.keyboard.press('Enter');
  await page.locator('#status', { hasText: 'The spending cap of Visa ending in 4242 is now €50.00.' }).waitFor();
  assert.match(await row.innerText(), /€50\.00/);
  assert.equal(w.mail.count(email), sent + 1, 'lowering e-mails no code');

  // Not an amount: refused at the field before anything is sent; Escape closes the panel.
  await focusIs(page, id);
  await page.keyboard.press('Enter');
  await page.keyboard.type('lots');
  await page.keyboard.press('Enter');
  await focusIs(page, 'error-summary');
  assert.equal(await page.locator('#cap-amount-error').innerText(), 'Enter the spending cap as an amount, like 150.00');
  assert.equal(await page.locator('#cap-amount').getAttribute('aria-invalid'), 'true');
  assert.equal(w.mail.count(email), sent + 1);
  await page.locator('#cap-amount').press('Escape');
  await focusIs(page, id);
  assert.equal(await page.locator('#change-cap').isHidden(), true);
  assert.deepEqual(
    w.browser.problems.slice(problems),
    ['Failed to load resource: the server responded with a status of 422 (Unprocessable Entity)'],
    'only the wrong code was refused',
  );
});

test('a merchant’s bounded session lowers a card’s cap but is told that raising needs an e-mail sign-in', async () => {
  const m = await w.h.merchant();
  const email = newEmail();
  const page = await w.browser.page();
  await page.goto(`${w.h.url}/buyer/sign-in?merchantId=${m.shopId}`);
  await page.locator('main[data-ready]').waitFor();
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
  await page.locator('#sign-in-sent:not([hidden])').waitFor();
  await page.goto(linkIn(w.mail.last(email)));
  await page.locator('#session-who', { hasText: email }).waitFor();
  await openFromNav(page, 'Saved cards', /\/buyer\/cards/);
  await saveCard(w, page, email, '5555 5555 5555 4444', '100');

  const minted = await restClient(w.h.url, m.apiKey).post('/v1/integration/buyer-sessions', {
    merchantId: m.shopId,
    email,
  });
  assert.equal(minted.status, 201, JSON.stringify(minted.body));
  const bounded = await w.browser.page();
  await bounded.goto(`${w.h.url}/buyer/cards#session=${minted.body.token}`);
  await bounded.locator('#bounded-notice:not([hidden])').waitFor();
  const change = bounded.getByRole('button', { name: 'Change cap of Mastercard ending in 4444' });
  await change.click();
  await focusIs(bounded, 'cap-amount');
  const sent = w.mail.count(email);
  await bounded.keyboard.type('500');
  await bounded.keyboard.press('Enter');
  await focusIs(bounded, 'error-summary');
  assert.equal(
    await bounded.locator('#cap-amount-error').innerText(),
    'Raising a cap needs a sign-in with your e-mail address. You can lower it here.',
  );
  assert.equal(await bounded.locator('#cap-code-step').isHidden(), true);
  await bounded.locator('#cap-amount').fill('40');
  await bounded.locator('#cap-amount').press('Enter');
  await bounded
    .locator('#status', { hasText: 'The spending cap of Mastercard ending in 4444 is now €40.00.' })
    .waitFor();
  assert.match(await bounded.getByRole('row', { name: /Mastercard ending in 4444/ }).innerText(), /€40\.00/);
  assert.equal(w.mail.count(email), sent, 'no code was e-mailed');
  await assertAccessible(bounded);
});

test('a buyer removes a saved card after a danger confirmation, by keyboard; cancelling keeps it', async () => {
  w.browser.problems.length = 0; // the earlier tests' refusals (422) are theirs
  const page = await w.browser.page();
  const email = newEmail();
  await signIn(w, page, email);
  await openFromNav(page, 'Saved cards', /\/buyer\/cards/);
  await saveCard(w, page, email, '4242 4242 4242 4242', '150');
  const remove = page.getByRole('button', { name: 'Remove Visa ending in 4242' });
  await remove.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Remove Visa ending in 4242?' });
  await dialog.waitFor();
  assert.match(await dialog.innerText(), /permissions that use it end now/);
  assert.equal(await dialog.getByRole('button', { name: 'Remove' }).getAttribute('class'), 'danger');
  await assertAccessible(page);
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  await page.getByRole('row', { name: /Visa ending in 4242/ }).waitFor();

  await remove.click();
  await dialog.getByRole('button', { name: 'Remove' }).click();
  await page.locator('#status', { hasText: 'Visa ending in 4242 was removed.' }).waitFor();
  await page.locator('#cards-empty:not([hidden])').waitFor();
  await focusIs(page, 'cards-list-title');
  assert.equal(await page.getByRole('row', { name: /Visa ending in 4242/ }).count(), 0);
  await assertAccessible(page);
  assert.deepEqual(w.browser.problems, []);
});
