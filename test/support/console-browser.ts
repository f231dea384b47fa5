/**
 * The set-up every console browser test shares: a server with its mailbox, headless Chromium, the owner's shop, and
 * the owner signed in through the e-mailed link; plus the axe check and in-app navigation the console tests use.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { Page } from 'playwright-core';
import { axeOn, launchBrowser, type TestBrowser } from './browser.ts';
import { merchantShop, startWorld, type MerchantShop, type World } from './buyers.ts';
import type { Harness } from './harness.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';
import { reportOnFailure } from '../browser/flows.ts';

/** What a console browser test works with; filled in by the file's `before` hook. */
export interface ConsoleBrowserSession<M extends { ownerId: string } = MerchantShop> {
  w: World;
  browser: TestBrowser;
  /** The owner's organization and shop (by default `merchantShop`: an event, a pool and one tier). */
  m: M;
  ownerEmail: string;
  /** A webhook receiver on loopback, with `receiver: true` (the server then allows loopback webhook URLs). */
  rx: Receiver;
  /** Signs the owner in on `page` through the sign-in view and the one e-mailed link; ends on the overview. */
  signIn(page: Page): Promise<void>;
  /** Console errors other than the session probe's 401 (Chromium reports the signed-out probe as a failed load). */
  problems(): string[];
}

/**
 * Registers the file's `before`/`after` hooks (one server and one browser per file) and a failure report, and returns
 * the session they fill in. `merchant` makes the owner's organization (default: `merchantShop(h, shop)`).
 */
export function consoleBrowserSession<M extends { ownerId: string } = MerchantShop>(
  opts: {
    env?: Record<string, string>;
    shop?: Parameters<typeof merchantShop>[1];
    merchant?: (h: Harness) => Promise<M>;
    receiver?: boolean;
  } = {},
): ConsoleBrowserSession<M> {
  const s = {
    async signIn(page: Page) {
      const sent = s.w.box.count(s.ownerEmail);
      await page.goto(`${s.w.h.url}/console/sign-in`);
      await page.getByLabel('Work e-mail').fill(s.ownerEmail);
      await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
      await page.locator('.feedback', { hasText: 'a sign-in link is on its way' }).waitFor();
      assert.equal(s.w.box.count(s.ownerEmail), sent + 1, 'one sign-in e-mail');
      const hit = /\/console\/verify#token=[\w-]+/.exec(s.w.box.last(s.ownerEmail).text);
      assert.ok(hit, 'a /console/verify link in the mail');
      await page.goto(`${s.w.h.url}${hit[0]}`);
      await page.locator('main[data-view="overview"]').waitFor();
    },
    problems: () => s.browser.problems.filter((p) => !p.includes('status of 401 (Unauthorized)')),
  } as ConsoleBrowserSession<M>;
  reportOnFailure(() => ({ browser: s.browser, h: s.w?.h }));
  before(async () => {
    s.browser = await launchBrowser();
    if (opts.receiver) s.rx = await startReceiver();
    s.w = await startWorld({ ...(opts.receiver ? { WEBHOOK_ALLOW_LOOPBACK: 'true' } : {}), ...opts.env });
    s.m = opts.merchant ? await opts.merchant(s.w.h) : ((await merchantShop(s.w.h, opts.shop)) as unknown as M);
    const [row] = await s.w.h.db.execute<{ email: string }>('select email from users where id = ?', [s.m.ownerId]);
    s.ownerEmail = row!.email;
  });
  after(async () => {
    await s.browser?.close();
    await s.w?.close();
    await s.rx?.close();
  });
  return s;
}

/** axe on the page as it is: no violation at all. */
export async function noAxeViolations(page: Page, where: string): Promise<void> {
  const results = await axeOn(page).analyze();
  const found = results.violations.map(
    (v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
  );
  assert.deepEqual(found, [], `axe on ${where}`);
}

/** Moves to `path` inside the application (History API, as a link does) and waits for `view`. */
export async function go(page: Page, path: string, view: string): Promise<void> {
  await page.evaluate((to) => {
    history.pushState(null, '', to);
    dispatchEvent(new PopStateEvent('popstate'));
  }, path);
  await page.locator(`main[data-view="${view}"]`).waitFor();
  await page.locator('main .feedback', { hasText: 'Loading…' }).waitFor({ state: 'detached' });
}
