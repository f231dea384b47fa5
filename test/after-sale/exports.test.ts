/**
 * CSV exports (issue #34, the console's Exports view): create_export over REST and MCP returns a single-use,
 * short-lived link a browser GETs without a credential; the file is UTF-8 with a BOM, RFC 4180, formulas neutralised,
 * no ticket codes; 10,000+ rows stream in batches within a few seconds; another organization's shop is 404.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { callTool, mcpInMemory } from '../support/mcp.ts';
import { buy, merchantShop, must, newEmail, signIn, startWorld, type World } from '../support/buyers.ts';
import { restClient } from '../support/rest.ts';

const pg = createRequire(import.meta.resolve('@mikro-orm/postgresql'))('pg') as typeof import('pg');
// Kept to be called with its own `this` (apply below) and put back after the file.
// oxlint-disable-next-line typescript/unbound-method
const query = pg.Client.prototype.query;
let statements = 0;
let w: World;
before(async () => {
  w = await startWorld();
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    statements++;
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
});
after(async () => {
  pg.Client.prototype.query = query;
  await w?.close();
});

/** 2,501 orders of 4 tickets: 10,004 ticket rows. */
const COPIES = 2_500;
const PER_ORDER = 4;

/**
 * Copies an order (its quote, reservation, payment and tickets) `n` times in SQL, a fixture too large to buy one by
 * one; the pool's capacity grows by the places sold, so available + held + sold = capacity still holds.
 */
async function copyOrder(orderId: string, poolId: string, n: number): Promise<void> {
  // One call per row (a lateral function), not one per column as `(f(x)).*` would make.
  const copy = (table: string, where: string, changes: string) =>
    `insert into ${table} select c.* from ${table} x cross join generate_series(1, ${n}) g
       cross join lateral jsonb_populate_record(null::${table}, to_jsonb(x) || jsonb_build_object(${changes})) c
      where ${where}`;
  const s = `'_' || lpad(g::text, 5, '0')`;
  const [o] = await w.h.db.execute<{ reservation_id: string; payment_id: string; quantity: number }>(
    'select reservation_id, payment_id, quantity from orders where id = ?',
    [orderId],
  );
  await w.h.db.transaction(async (em) => {
    const run = (text: string, params: unknown[]) =>
      em.getConnection().execute(text, params, 'all', em.getTransactionContext());
    await run(
      copy('quotes', 'x.reservation_id = ?', `'id', x.id || ${s}, 'reservation_id', x.reservation_id || ${s}`),
      [o!.reservation_id],
    );
    await run(copy('reservations', 'x.id = ?', `'id', x.id || ${s}, 'quote_id', x.quote_id || ${s}`), [
      o!.reservation_id,
    ]);
    await run(
      copy(
        'payments',
        'x.id = ?',
        `'id', x.id || ${s}, 'reservation_id', x.reservation_id || ${s}, 'provider_reference', x.provider_reference || ${s}`,
      ),
      [o!.payment_id],
    );
    await run(
      copy(
        'orders',
        'x.id = ?',
        `'id', x.id || ${s}, 'reservation_id', x.reservation_id || ${s}, 'payment_id', x.payment_id || ${s}`,
      ),
      [orderId],
    );
    await run(
      copy(
        'tickets',
        'x.order_id = ?',
        `'id', x.id || ${s}, 'order_id', x.order_id || ${s}, 'code', x.code || ${s}, 'signed_code', x.signed_code || ${s}`,
      ),
      [orderId],
    );
    await run('update pools set capacity = capacity + ? where id = ?', [n * o!.quantity, poolId]);
  });
}

/** GETs a download link as a browser would: no credential. */
async function download(url: string): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await fetch(url);
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

test('orders and tickets export as CSV: 10,000+ rows streamed, BOM, formulas neutralised, single use, others 404', async () => {
  const m = await merchantShop(w.h, { discoverable: true, capacity: 10 });
  must(
    await m.api.patch(`/v1/integration/events/${m.eventId}`, { title: '=HYPERLINK("http://evil.example","x")' }),
    200,
  );
  must(await m.api.patch(`/v1/integration/tiers/${m.tierId}`, { name: '-2+3' }), 200);
  const email = newEmail();
  const buyer = restClient(w.h.url, await signIn(w, email));
  const order = must(await buy(buyer, m.tierId, PER_ORDER, { paymentMethod: 'pm_sandbox_visa' }), 200).order;
  await copyOrder(order.id, m.poolId, COPIES);

  const link = must(await m.api.post('/v1/ticketing/exports', { merchantId: m.shopId, kind: 'orders' }), 201);
  assert.match(link.downloadUrl, new RegExp(`^${w.h.url}/v1/exports/tex_`));
  const file = await download(link.downloadUrl);
  assert.equal(file.status, 200);
  assert.equal(file.headers.get('content-type'), 'text/csv; charset=utf-8');
  assert.equal(file.headers.get('content-disposition'), `attachment; filename="${link.filename}"`);
  assert.deepEqual([...file.bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'UTF-8 BOM');
  const lines = file.bytes.subarray(3).toString('utf8').split('\r\n');
  assert.equal(lines.at(-1), '');
  assert.equal(
    lines[0],
    'order_id,created_at,state,buyer_email,buyer_name,event_id,event_title,tier_name,quantity,total_minor,refunded_minor,currency',
  );
  assert.equal(lines.length - 2, COPIES + 1);
  assert.equal(
    lines[1],
    [
      order.id,
      order.createdAt,
      'completed',
      email,
      '',
      m.eventId,
      `"'=HYPERLINK(""http://evil.example"",""x"")"`,
      "'-2+3",
      String(PER_ORDER),
      String(PER_ORDER * 5000),
      '0',
      'EUR',
    ].join(','),
  );
  assert.equal((await download(link.downloadUrl)).status, 404, 'a link works once');

  const mcp = await mcpInMemory(w.h, m.apiKey);
  const made = await callTool(mcp, 'create_export', { merchantId: m.shopId, kind: 'tickets', eventId: m.eventId });
  assert.ok(made.ok);
  const started = performance.now();
  statements = 0;
  const tickets = await download((made.output as any).downloadUrl);
  const took = performance.now() - started;
  const ROWS = (COPIES + 1) * PER_ORDER;
  assert.ok(statements >= ROWS / 1000, `read in batches of at most 1,000 rows: ${statements} statements`);
  assert.ok(took < 10_000, `${ROWS} rows took ${Math.round(took)} ms`);
  const text = tickets.bytes.toString('utf8');
  const rows = text.slice(1).split('\r\n');
  assert.equal(
    rows[0],
    'ticket_id,order_id,created_at,state,checked_in_at,buyer_email,buyer_name,event_id,event_title,tier_name',
  );
  assert.equal(rows.length - 2, ROWS);
  assert.ok(!text.includes(order.tickets[0].code) && !text.includes(order.tickets[0].signedCode), 'no ticket codes');
  await mcp.close();

  const late = must(await m.api.post('/v1/ticketing/exports', { merchantId: m.shopId, kind: 'orders' }), 201);
  w.h.clock.advance(5 * 60_000);
  assert.equal((await download(late.downloadUrl)).status, 404, 'expired after 5 minutes');
  assert.equal((await download(`${w.h.url}/v1/exports/tex_nope`)).status, 404);

  const other = await merchantShop(w.h);
  assert.equal((await other.api.post('/v1/ticketing/exports', { merchantId: m.shopId, kind: 'orders' })).status, 404);
  const otherMcp = await mcpInMemory(w.h, other.apiKey);
  const hidden = await callTool(otherMcp, 'create_export', { merchantId: m.shopId, kind: 'orders' });
  assert.equal(hidden.ok ? 'ok' : hidden.code, 'not_found');
  await otherMcp.close();
});
