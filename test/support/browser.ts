/**
 * Headless Chromium (found by test/support/chromium.ts) driven by playwright-core, plus the per-page accessibility
 * check.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type BrowserContext, type Page, type Request } from 'playwright-core';
import { GET_CHROMIUM, resolveChromium } from './chromium.ts';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Upper bound for any single wait (an action, a selector, a message, a navigation) on a loaded machine:
 * a bound, never a sleep; tests wait for what the page shows.
 */
export const WAIT = 90_000;
/** Upper bound for the browser to start: a missing or broken one fails at once, a hung one within this. */
const LAUNCH_WAIT = 30_000;

export interface TestBrowser {
  context: BrowserContext;
  /** A new tab; its console errors (CSP violations included) are collected in `problems`. */
  page(): Promise<Page>;
  problems: string[];
  /**
   * For a failed test's report: the requests Chromium still waits on (sent, not finished), with how long, and its
   * last failed requests. A hang then names its request. URLs without their query.
   */
  network(): string[];
  /** Where screenshots go: a temp dir, removed at close unless TESSERA_KEEP_SCREENSHOTS is set. */
  shotDir: string;
  close(): Promise<void>;
}

/**
 * Launches the run's Chromium (global setup exports its path; a file run alone finds it here) or fails saying how to
 * get one.
 */
export async function launchBrowser(): Promise<TestBrowser> {
  const executablePath = process.env.TESSERA_CHROMIUM ?? (await resolveChromium());
  if (!executablePath) throw new Error(`No headless Chromium for the browser tests: ${GET_CHROMIUM}.`);
  const profile = mkdtempSync(join(tmpdir(), 'tessera-profile-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      args: ARGS,
      timeout: LAUNCH_WAIT,
      viewport: { width: 1100, height: 900 },
      locale: 'en-GB',
      timezoneId: 'UTC',
    });
  } catch (err) {
    rmSync(profile, { recursive: true, force: true });
    const why = (err as Error).message.split('\n')[0];
    throw new Error(`Headless Chromium ${executablePath} did not start (${why}): ${GET_CHROMIUM}.`);
  }
  context.setDefaultTimeout(WAIT);
  const shotDir = mkdtempSync(join(tmpdir(), 'tessera-shots-'));
  const problems: string[] = [];
  const waiting = new Map<Request, number>();
  const failed: string[] = [];
  const described = (r: Request) => `${r.method()} ${r.url().replace(/\?.*$/s, '?…')}`;
  context.on('request', (r) => waiting.set(r, performance.now()));
  context.on('requestfinished', (r) => waiting.delete(r));
  context.on('requestfailed', (r) => {
    waiting.delete(r);
    failed.push(`${described(r)}: ${r.failure()?.errorText ?? 'failed'}`);
    if (failed.length > 20) failed.shift();
  });
  return {
    context,
    problems,
    shotDir,
    network() {
      const now = performance.now();
      return [
        ...[...waiting]
          .filter(([r]) => !r.url().startsWith('data:'))
          .map(([r, at]) => `Chromium waits on ${described(r)} (sent ${((now - at) / 1000).toFixed(1)} s ago)`),
        ...failed.map((f) => `Chromium request failed: ${f}`),
      ];
    },
    async page() {
      const page = await context.newPage();
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(m.text());
      });
      page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
      return page;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
      if (!process.env.TESSERA_KEEP_SCREENSHOTS) rmSync(shotDir, { recursive: true, force: true });
    },
  };
}

/**
 * The accessibility check every page passes: `lang` is set, exactly one h1, no inline script (or inline event
 * handler), and every form control, button and link has an accessible name as Chromium computes it.
 */
export async function assertAccessible(page: Page, lang = 'en'): Promise<void> {
  const dom = await page.evaluate(() => {
    const nameOf = (el: Element): string => {
      const labelled = el.getAttribute('aria-labelledby');
      if (labelled)
        return labelled
          .split(/\s+/)
          .map((id) => document.getElementById(id)?.textContent ?? '')
          .join(' ')
          .trim();
      const aria = el.getAttribute('aria-label');
      if (aria) return aria.trim();
      const labels = (el as HTMLInputElement).labels;
      return labels
        ? [...labels]
            .map((l) => l.textContent ?? '')
            .join(' ')
            .trim()
        : '';
    };
    const controls = [...document.querySelectorAll('input:not([type=hidden]), select, textarea')];
    const handlers = [...document.querySelectorAll('*')].filter((el) =>
      [...el.attributes].some((a) => a.name.startsWith('on')),
    );
    return {
      lang: document.documentElement.lang,
      h1: document.querySelectorAll('h1').length,
      inlineScripts: [...document.scripts].filter((s) => !s.src).length,
      handlers: handlers.length,
      unnamed: controls.filter((c) => !nameOf(c)).map((c) => c.id || c.outerHTML.slice(0, 80)),
    };
  });
  assert.equal(dom.lang, lang, 'the html element carries the page language');
  assert.equal(dom.h1, 1, 'exactly one h1');
  assert.equal(dom.inlineScripts, 0, 'no inline scripts');
  assert.equal(dom.handlers, 0, 'no inline event handlers');
  assert.deepEqual(dom.unnamed, [], 'every form control (shown or not) has a label');
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as {
      nodes: { ignored: boolean; role?: { value: string }; name?: { value: string } }[];
    };
    const needsName = new Set([
      'textbox',
      'combobox',
      'spinbutton',
      'searchbox',
      'checkbox',
      'radio',
      'button',
      'link',
      'Iframe',
    ]);
    const unnamed = nodes
      .filter((n) => !n.ignored && n.role && needsName.has(n.role.value) && !(n.name?.value ?? '').trim())
      .map((n) => n.role!.value);
    assert.deepEqual(unnamed, [], 'every exposed control, button, link and frame has an accessible name');
  } finally {
    await cdp.detach();
  }
}

/** Waits until keyboard focus is on the element with `id`. */
export async function focusIs(page: Page, id: string): Promise<void> {
  await page.waitForFunction((want) => document.activeElement?.id === want, id, { timeout: WAIT });
}

/** Presses Tab until the element with `id` has focus (at most `limit` presses): how a keyboard user gets there. */
export async function tabTo(page: Page, id: string, limit = 40): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if (await page.evaluate((want) => document.activeElement?.id === want, id)) return;
    await page.keyboard.press('Tab');
  }
  assert.fail(`Tab never reached #${id}`);
}

/**
 * The page's text as a reader meets it (text nodes, the title and naming attributes, hidden parts included), outside
 * parts marked with another language: what an English-leak check reads (`englishLeakFinder`). With
 * `validationMessages`, also each input's current validation message (the browser's, in the browser's locale).
 */
export async function pageSegments(
  page: Page,
  attributes: readonly string[],
  opts: { validationMessages?: boolean } = {},
): Promise<string[]> {
  return page.evaluate(
    ({ attrs, validation }) => {
      const lang = document.documentElement.lang;
      const out: string[] = [document.title];
      const visit = (node: Node) => {
        if (node.nodeType === Node.TEXT_NODE) {
          out.push(node.textContent ?? '');
          return;
        }
        if (!(node instanceof Element)) return;
        if (['SCRIPT', 'STYLE', 'NOSCRIPT'].includes(node.tagName)) return;
        const own = node.getAttribute('lang');
        if (own && own !== lang) return;
        for (const a of attrs) {
          const v = node.getAttribute(a);
          if (v) out.push(v);
        }
        if (validation && node instanceof HTMLInputElement && node.validationMessage) out.push(node.validationMessage);
        for (const child of node.childNodes) visit(child);
      };
      visit(document.body);
      return out.map((s) => s.replace(/\s+/g, ' ').trim()).filter(Boolean);
    },
    { attrs: [...attributes], validation: opts.validationMessages ?? false },
  );
}

/**
 * axe-core on `page` as it is now, reporting violations only (the tests read nothing else). A page without child
 * frames is checked with one `axe.run` in the page ("legacy mode"): the default mode, built to gather results across
 * frames, also opens, loads axe-core into and closes a blank tab on every check (about 2 s of a 2.4 s check on a busy
 * machine), for the same rules and the same single frame. A page with frames keeps the default mode, which also
 * checks cross-origin frames.
 */
export function axeOn(page: Page): AxeBuilder {
  return new AxeBuilder({ page }).options({ resultTypes: ['violations'] }).setLegacyMode(page.frames().length === 1);
}
