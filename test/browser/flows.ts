/**
 * The buyer-page journeys several browser tests share: a server with real SMTP, a browser, signing in, an agent, a
 * card.
 */
import assert from 'node:assert/strict';
import { afterEach, type TestContext } from 'node:test';
import type { Page } from 'playwright-core';
import { startHarness, type Harness } from '../support/harness.ts';
import { launchBrowser, type TestBrowser } from '../support/browser.ts';
import { codeIn, startMailbox, type Mailbox, type ReceivedMail } from '../support/smtp.ts';
import { perFile } from '../support/world-per-file.ts';

export interface World {
  h: Harness;
  /**
   * The loopback SMTP server the app delivers to. The page shows a step only after the API answered, i.e. after the
   * mail was accepted.
   */
  mail: Mailbox;
  browser: TestBrowser;
  shopId: string;
  close(): Promise<void>;
}

/**
 * A headless browser, a server whose mail goes over SMTP to a loopback mailbox, and a merchant's shop. The browser
 * starts first, so a missing one fails at once; whatever did start is closed when a later step fails, so a failed
 * `before` leaves nothing running that would keep the test file from ending.
 */
export async function startWorld(): Promise<World> {
  const started: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const stop of started.reverse()) await stop();
  };
  try {
    const browser = await launchBrowser();
    started.push(() => browser.close());
    const mail = await startMailbox();
    started.push(() => mail.close());
    // Every page, asset and anonymous call of a file's journeys comes from 127.0.0.1, one address: at the default 600 a
    // minute a file that runs fast (every page × language) was refused 429. The limits have their own tests
    // (test/security/rate-limit.test.ts); the strict budget (sign-in, codes) keeps its default.
    const h = await startHarness({
      SMTP_URL: mail.url,
      SMTP_TIMEOUT_MS: '5000',
      RATE_LIMIT_PER_MINUTE: '6000',
      RATE_LIMIT_STRICT_PER_MINUTE: '30',
    });
    started.push(() => h.close());
    const m = await h.merchant();
    return { h, mail, browser, shopId: m.shopId, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * What a failed test's report says: what Chromium still waits on, what the server is still answering, Chromium's last
 * failed requests and its console errors.
 */
export function failureReport({ browser, h }: { browser?: TestBrowser; h?: Harness }): string {
  const lines = [
    ...(browser?.network() ?? []),
    ...(h?.inFlight() ?? []),
    ...(browser?.problems ?? []).map((p) => `console: ${p}`),
  ];
  return lines.length
    ? `when it failed:\n${lines.join('\n')}`
    : 'when it failed: no request unanswered, none failed, no console error';
}

/**
 * Registers (at a test file's top level) the report a failed test gets (`failureReport`): a test that failed waiting
 * for a page (90 s) then says which request, if any, was never answered, and on which side.
 */
export function reportOnFailure(parts: () => { browser?: TestBrowser; h?: Harness }): void {
  afterEach((c) => {
    const t = c as TestContext & { readonly passed: boolean }; // a test's context has `passed` at run time (Node 24); @types/node types it on suites only
    if (!t.passed) t.diagnostic(failureReport(parts()));
  });
}

let seq = 0;
/**
 * One world for the whole test file: registers the `before`/`after` hooks that start and close it and the failure
 * report, and returns a world that reads through to the started one (use it from the tests).
 */
export function worldPerFile(): World {
  const w = perFile(startWorld);
  reportOnFailure(() => ({ browser: w.peek()?.browser, h: w.peek()?.h }));
  return {
    get h() {
      return w.get().h;
    },
    get mail() {
      return w.get().mail;
    },
    get browser() {
      return w.get().browser;
    },
    get shopId() {
      return w.get().shopId;
    },
    close: async () => w.peek()?.close(),
  };
}

/** A fresh buyer address per journey. */
export function newEmail(): string {
  return `buyer${++seq}-${Date.now()}@example.test`;
}

/** The sign-in link in a sign-in e-mail. */
export function linkIn(mail: ReceivedMail): string {
  const m = /https?:\/\/\S+\/buyer\/verify\?\S*#token=[\w-]+/.exec(mail.text);
  if (!m) throw new Error(`no sign-in link in: ${mail.text}`);
  return m[0];
}

/** Asks for a sign-in link on the sign-in page and returns the link from the e-mail. */
export async function requestLink(w: World, page: Page, email: string): Promise<string> {
  await page.goto(`${w.h.url}/buyer/sign-in?merchantId=${w.shopId}`);
  await page.locator('main[data-ready]').waitFor();
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
  await page.locator('#sign-in-sent:not([hidden])').waitFor();
  return linkIn(w.mail.last(email));
}

/** Signs in with the magic link and waits for the agents page with the session shown. */
export async function signIn(w: World, page: Page, email: string): Promise<void> {
  const link = await requestLink(w, page, email);
  await page.goto(link);
  await page.waitForURL(/\/buyer\/agents/);
  await page.locator('#session-who', { hasText: email }).waitFor();
  await page.locator('main[data-ready]').waitFor();
  // The page announces the sign-in a moment after it is ready; an action before that would have its own status
  // overwritten.
  await page.locator('#status', { hasText: `You are signed in as ${email}.` }).waitFor();
}

/** Asks for a code by submitting `form`'s first step, reads it from the e-mail, and types it. */
export async function enterEmailedCode(w: World, page: Page, email: string, prefix: string): Promise<void> {
  const before = w.mail.count(email);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.locator(`#${prefix}-code-step:not([hidden])`).waitFor();
  assert.equal(w.mail.count(email), before + 1);
  await page.locator(`#${prefix}-code`).fill(codeIn(w.mail.last(email)));
}

/** Creates an agent on the agents page (pointer and fill) and returns its one-time credential. */
export async function createAgent(w: World, page: Page, email: string, name: string): Promise<string> {
  await page.getByLabel('Agent name').fill(name);
  await enterEmailedCode(w, page, email, 'agent');
  await page.getByRole('button', { name: 'Create agent' }).click();
  await page.locator('#new-credential:not([hidden])').waitFor();
  const token = await page.locator('#new-credential-value').inputValue();
  assert.match(token, /^tag_/);
  return token;
}

/** Saves a card through the provider's framed form on the cards page. */
export async function saveCard(w: World, page: Page, email: string, cardNumber: string, cap: string): Promise<void> {
  await page.getByRole('button', { name: 'Add a card' }).click();
  const form = page.frameLocator('iframe[title="Card details form from the payment provider"]');
  await form.getByLabel('Card number').fill(cardNumber);
  await form.getByRole('button', { name: 'Use this card' }).click();
  await page.locator('#save-card-form:not([hidden])').waitFor();
  await page.getByLabel('Spending cap per charge').fill(cap);
  await enterEmailedCode(w, page, email, 'card');
  await page.getByRole('button', { name: 'Save card' }).click();
  await page.locator('#save-card-form[hidden]').waitFor({ state: 'attached' });
}

/** Opens another buyer page from the navigation (no reload: the in-memory session stays). */
export async function openFromNav(page: Page, name: string, path: RegExp): Promise<void> {
  await page.getByRole('navigation', { name: 'Your account' }).getByRole('link', { name }).click();
  await page.waitForURL(path);
  await page.locator('main[data-ready] #content:not([hidden])').waitFor();
}
