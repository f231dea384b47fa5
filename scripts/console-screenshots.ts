/**
 * Writes the console's screenshots for docs/console.md (`npm run docs:screenshots`): starts `tessera serve` on a fresh
 * embedded database (the demo organization, its shop, event and tiers), sells and refunds a few tickets through the
 * demo API key, signs the demo owner in through the mail outbox's link in headless Chromium, and saves the main views
 * as docs/images/console-*.png (1280 px wide; the overview also at 390 px).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { createClient } from '../sdk/src/index.ts';
import { resolveChromium } from '../test/support/chromium.ts';
import { startServerProcess } from '../test/support/server-process.ts';

const OUT = join(import.meta.dirname, '..', 'docs', 'images');
const OWNER = 'owner@demo.tessera.local';

const dataDir = mkdtempSync(join(tmpdir(), 'tessera-shots-'));
const server = await startServerProcess({ TESSERA_DATA_DIR: dataDir, LOG_LEVEL: 'error' });
try {
  const banner = server.stdout();
  const apiKey = /API key\s+(tsk_\S+)/.exec(banner)?.[1];
  const shopId = /Shop\s+(shop_\S+)/.exec(banner)?.[1];
  const tierIds = /Tiers\s+(.+)/.exec(banner)?.[1]?.trim().split(/\s+/) ?? [];
  if (!apiKey || !shopId || !tierIds.length) throw new Error(`No demo data in the banner:\n${banner}`);

  // A few sales (and one refund) through the SDK, as an integration would make them.
  const api = createClient({ baseUrl: server.url, token: apiKey });
  const orders: string[] = [];
  for (const [tierId, quantity] of [
    [tierIds[0]!, 2],
    [tierIds[1]!, 1],
    [tierIds[0]!, 4],
    [tierIds[0]!, 1],
  ] as const) {
    const quote = await api.quote({ tierId, quantity });
    const { reservation } = await api.reserve({ quoteId: quote.quoteId });
    const done = await api.confirm({ id: reservation.id, paymentMethod: 'pm_sandbox_visa' });
    if (done.order) orders.push(done.order.id);
  }
  await api.call('refund_order', { id: orders[3]!, reason: 'Cannot come', returnToPool: true });
  // One ticket of the four-ticket order back: its page then shows a refund and still offers to refund the rest.
  const four = await api.call('get_order', { id: orders[2]! });
  await api.call('refund_order', {
    id: four.id,
    ticketIds: [four.tickets[0]!.id],
    reason: 'Bought one too many',
    returnToPool: true,
  });

  // The owner's sign-in link, from the development mail outbox.
  await createClient({ baseUrl: server.url }).call('request_console_sign_in_link', { email: OWNER });
  const outbox = await (await fetch(`${server.url}/dev/mail?to=${encodeURIComponent(OWNER)}`)).text();
  const link = /\/console\/verify#token=[\w-]+/.exec(outbox)?.[0];
  if (!link) throw new Error('No sign-in link in the mail outbox.');

  const executablePath = await resolveChromium();
  if (!executablePath) throw new Error('No headless Chromium: see test/support/chromium.ts.');
  const browser = await chromium.launch({ executablePath, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: 'en-GB', timezoneId: 'UTC' });
    await page.goto(`${server.url}${link}`);
    await page.locator('main[data-view="overview"]').waitFor();
    mkdirSync(OUT, { recursive: true });
    const shot = async (path: string, view: string, name: string, target: Page = page) => {
      await target.goto(`${server.url}${path}`);
      await target.locator(`main[data-view="${view}"] #view-title`).waitFor();
      await target.locator('main p[role="status"]', { hasText: 'Loading' }).waitFor({ state: 'detached' });
      await target.screenshot({ path: join(OUT, `console-${name}.png`), fullPage: name !== 'event' });
      process.stdout.write(`docs/images/console-${name}.png\n`);
    };
    const shop = `/console/shops/${shopId}`;
    const eventHref = await page.locator('main section h2 a').first().getAttribute('href');
    await shot(`${shop}/overview`, 'overview', 'overview');
    await shot(`${shop}/events`, 'events', 'events');
    await shot(eventHref!, 'event', 'event');
    await shot(`${shop}/orders`, 'orders', 'orders');
    await shot(`${shop}/orders/${orders[2]}`, 'order', 'order');
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(`${shop}/overview`, 'overview', 'overview-390');
  } finally {
    await browser.close();
  }
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
