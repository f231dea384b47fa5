/**
 * The report a failed browser test gets (`reportOnFailure` in flows.ts): a call Chromium sent and the server is still
 * answering (held on a row lock, no timing) is named on both sides with its path, a request that failed is named with
 * Chromium's reason, and once the call is answered neither side lists it. Queries are left out of the report.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, test } from 'node:test';
import { holdRows, poll } from '../support/row-lock.ts';
import { failureReport, reportOnFailure, startWorld, type World } from './flows.ts';

let w: World;
reportOnFailure(() => ({ browser: w?.browser, h: w?.h }));
before(async () => {
  w = await startWorld();
});
after(async () => {
  await w?.close();
});

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as { port: number };
  await new Promise<void>((ok) => server.close(() => ok()));
  return port;
}

test('a call still unanswered is named on both sides, a failed request with its reason; an answered one is gone', async () => {
  const m = await w.h.merchant();
  const page = await w.browser.page();
  await page.goto(`${w.h.url}/buyer/sign-in?merchantId=${w.shopId}`); // a page of ours whose CSP lets it call the API
  await page.locator('main[data-ready]').waitFor();
  const holder = await holdRows(w.h.dbUrl, 'select id from shops where id = $1 for update', [m.shopId]);
  try {
    const path = `/v1/integration/shops/${m.shopId}`;
    // The report's own listeners were registered on the context first: once these events resolve, it has seen them.
    const sent = w.browser.context.waitForEvent('request', (r) => r.url().includes(path));
    const answered = page.evaluate(
      ([p, key]) =>
        fetch(`${p}?secret=1`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Renamed' }),
        }).then(async (r) => (await r.text(), r.status)),
      [path, m.apiKey] as const,
    );
    await sent;
    // Each try asks the database (a bounded count, not a time); the call stays held once the server has read it.
    assert.ok(
      await poll(async () => (await holder.waiters()) > 0 && w.h.inFlight().length > 0),
      'the server read the call, which waits on the lock',
    );
    const report = failureReport({ browser: w.browser, h: w.h });
    assert.match(
      report,
      new RegExp(`^Chromium waits on PATCH ${w.h.url}${path}\\?… \\(sent \\d+\\.\\d s ago\\)$`, 'm'),
    );
    assert.match(report, new RegExp(`^the server is still answering PATCH ${path} \\(read \\d+\\.\\d s ago\\)$`, 'm'));
    assert.doesNotMatch(report, /secret/);

    const port = await closedPort();
    const blank = await w.browser.page();
    const refused = w.browser.context.waitForEvent('requestfailed', (r) => r.url().includes(`:${port}/nothing`));
    await blank.evaluate((u) => fetch(u).catch(() => undefined), `http://127.0.0.1:${port}/nothing?x=1`);
    await refused;
    assert.match(
      failureReport({ browser: w.browser }),
      new RegExp(
        `^Chromium request failed: GET http://127\\.0\\.0\\.1:${port}/nothing\\?…: net::ERR_CONNECTION_REFUSED$`,
        'm',
      ),
    );
    await blank.close();

    const finished = w.browser.context.waitForEvent('requestfinished', (r) => r.url().includes(path));
    await holder.release();
    assert.equal(await answered, 200);
    await finished;
    assert.deepEqual(w.h.inFlight(), []);
    assert.deepEqual(
      w.browser.network().filter((l) => l.startsWith('Chromium waits on')),
      [],
    );
  } finally {
    await holder.end();
  }
  await page.close();
});
