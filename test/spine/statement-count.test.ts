/**
 * How many SQL statements a quote and a confirm send (issue #35: their CPU follows the count), so the gain cannot
 * silently regress. Every statement the server's PostgreSQL driver sends while a call runs is counted (the order-mail
 * worker the confirm kicks included), by observing `pg`'s `Client.prototype.query` in this process.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { confirmWith, must, reserveOne, shopWithTier, startSpineHarness } from '../support/spine.ts';

/** The driver the ORM loads (its own copy of `pg`, not necessarily the one this file would import). */
const pg = createRequire(import.meta.resolve('@mikro-orm/postgresql'))('pg') as typeof import('pg');
let h: Harness;
const sent: string[] = [];
let counting = false;
const query = Reflect.get(pg.Client.prototype, 'query') as (...args: unknown[]) => unknown;
before(async () => {
  h = await startSpineHarness();
  Reflect.set(pg.Client.prototype, 'query', function (this: unknown, ...args: unknown[]) {
    const text = args[0];
    if (counting) sent.push(typeof text === 'string' ? text : String((text as { text?: string })?.text));
    return query.apply(this, args);
  });
});
after(async () => {
  Reflect.set(pg.Client.prototype, 'query', query);
  await h?.close();
});

/** The statements `call` sends, and the order-mail worker's after it. */
async function statementsOf(call: () => Promise<unknown>): Promise<string[]> {
  sent.length = 0;
  counting = true;
  try {
    await call();
    await h.app.orderMail.idle();
  } finally {
    counting = false;
  }
  if (process.env.SHOW_STATEMENTS) console.error(sent.map((s, i) => `${i + 1}. ${s.slice(0, 160)}`).join('\n'));
  return [...sent];
}

test('a quote sends at most 4 statements and a confirm at most 8, the order-mail worker not kicked for an order without mail', async () => {
  const s = await shopWithTier(h, { capacity: 5 });
  // A first purchase warms what a process reads once (the API key, the ticket-signing key).
  const first = await reserveOne(s.api, s.tierId);
  must(await confirmWith(s.api, first.reservation.id, 'pm_sandbox_visa'), 200);

  const quote = await statementsOf(() => s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 2 }));
  const r = await reserveOne(s.api, s.tierId, 2);
  let view: { order?: { tickets: unknown[] } } | undefined;
  const confirm = await statementsOf(async () => {
    view = must(await confirmWith(s.api, r.reservation.id, 'pm_sandbox_visa'), 200);
  });
  assert.equal(view?.order?.tickets.length, 2);
  assert.ok(quote.length <= 4, `a quote sent ${quote.length} statements:\n${quote.join('\n')}`);
  assert.ok(confirm.length <= 8, `a confirm sent ${confirm.length} statements:\n${confirm.join('\n')}`);
  await assertInvariant(h.db, s.poolId);
});
