/**
 * The order e-mails go through the work queue (src/storage/work-queue.ts): sent by the worker, retried with back-off
 * on the injected clock, given up after 10 attempts, each sent once whichever process claims it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { OrderMailQueue } from '../../src/domain/purchase/order-mail.ts';
import { Database } from '../../src/storage/database.ts';
import { restClient } from '../support/rest.ts';
import { signInTokenIn } from '../support/smtp.ts';
import { buy, merchantShop, must, newEmail, startWorld, type World } from '../support/buyers.ts';

let w: World;
before(async () => {
  w = await startWorld();
});
after(async () => {
  await w?.close();
});

/** A full buyer session for a new address. */
async function buyer(): Promise<{ email: string; api: ReturnType<typeof restClient> }> {
  const email = newEmail();
  const anon = restClient(w.h.url);
  must(await anon.post('/v1/buyer/sign-in-links', { email, lang: 'en' }), 202);
  const session = must(await anon.post('/v1/buyer/sessions', { token: signInTokenIn(w.box.last(email)) }), 201);
  return { email, api: restClient(w.h.url, session.token) };
}

/** The order confirmations `email` received. */
const confirmations = (email: string) =>
  w.box.messages.filter((m) => m.to.includes(email) && m.subject.startsWith('Your tickets'));

/** Buys one ticket while the SMTP server refuses mail: the worker's first attempt (kicked by the confirm) fails. */
async function buyWhileRefused(m: { tierId: string }, b: { api: ReturnType<typeof restClient> }): Promise<string> {
  w.box.refusing = true;
  try {
    const order = must(await buy(b.api, m.tierId, 1, { paymentMethod: 'pm_sandbox_visa' }), 200).order;
    await w.h.app.orderMail.idle();
    return order.id;
  } finally {
    w.box.refusing = false;
  }
}

test('a refused order e-mail is retried once its back-off has passed on the injected clock', async () => {
  const m = await merchantShop(w.h, { discoverable: true });
  const b = await buyer();
  await buyWhileRefused(m, b);
  assert.equal(confirmations(b.email).length, 0, 'the first attempt was refused');
  w.h.clock.advance(59_000);
  await w.h.app.orderMail.sendDue();
  assert.equal(confirmations(b.email).length, 0, 'not due before its 60 s back-off');
  w.h.clock.advance(1_000);
  await w.h.app.orderMail.sendDue();
  assert.equal(confirmations(b.email).length, 1, 'sent once the back-off has passed');
  w.h.clock.advance(3_600_000);
  await w.h.app.orderMail.sendDue();
  assert.equal(confirmations(b.email).length, 1, 'never sent twice');
});

test('an order e-mail refused 10 times is given up', async () => {
  const m = await merchantShop(w.h, { discoverable: true });
  const b = await buyer();
  await buyWhileRefused(m, b);
  w.box.refusing = true;
  try {
    for (let attempt = 2; attempt <= 10; attempt++) {
      w.h.clock.advance(3_600_000); // past any back-off (at most an hour)
      await w.h.app.orderMail.sendDue();
    }
  } finally {
    w.box.refusing = false;
  }
  w.h.clock.advance(3_600_000);
  await w.h.app.orderMail.sendDue();
  assert.equal(confirmations(b.email).length, 0, 'no eleventh attempt');
});

test('two workers on one database (as two processes would) send each order e-mail exactly once', async () => {
  const m = await merchantShop(w.h, { discoverable: true, capacity: 100 });
  const b = await buyer();
  const orders: string[] = [];
  for (let i = 0; i < 30; i++) orders.push(await buyWhileRefused(m, b));
  w.h.clock.advance(3_600_000);
  const otherDb = await Database.open(w.h.dbUrl);
  try {
    const log = pino({ level: 'silent' });
    const other = new OrderMailQueue({ ...w.h.app.services, db: otherDb, clock: w.h.clock, log });
    const mine = w.h.app.orderMail;
    await Promise.all([mine.sendDue(), other.sendDue(), mine.sendDue(), other.sendDue()]);
    while ((await mine.sendDue()) > 0) {
      /* what the concurrent passes left */
    }
  } finally {
    await otherDb.close();
  }
  const sent = confirmations(b.email).map((mail) => orders.find((id) => mail.text.includes(id)));
  assert.equal(sent.length, 30, 'one e-mail per order');
  assert.deepEqual(new Set(sent), new Set(orders), 'each order’s own');
});
