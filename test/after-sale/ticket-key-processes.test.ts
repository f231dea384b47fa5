/**
 * Ticket-signing keys across processes: a key rotated by another server process on the same database signs the next
 * ticket of this one (each process keeps opened private keys in memory by key id, and reads which one is active
 * with every ticket), and the other way round. The other process runs with `--throw-deprecation`: starting and
 * confirming print no deprecation warning (Node 24's DEP0204 came from making a KeyObject of a WebCrypto key).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { serverEnvFor } from '../support/database.ts';
import { restClient } from '../support/rest.ts';
import { SERVER_NODE_ARGS, startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { confirmWith, must, reserveOne, shopWithTier, startSpineHarness, type Api } from '../support/spine.ts';

let h: Harness;
let other: ServerProcess;
before(async () => {
  h = await startSpineHarness();
  other = await startServerProcess(
    { ...serverEnvFor(h.dbUrl), SWEEP_INTERVAL_MS: '0', SANDBOX_DISPATCH_MS: '0', WEBHOOK_DISPATCH_MS: '0' },
    undefined,
    [...SERVER_NODE_ARGS, '--throw-deprecation'],
  );
});
after(async () => {
  await other?.stop();
  await h?.close();
});

/** The `kid` in a ticket code's protected header. */
const kidOf = (signedCode: string): string =>
  JSON.parse(Buffer.from(signedCode.split('.')[0]!, 'base64url').toString('utf8')).kid;

async function ticketKid(api: Api, tierId: string): Promise<string> {
  const r = await reserveOne(api, tierId, 1);
  const order = must(await confirmWith(api, r.reservation.id, 'pm_sandbox_visa'), 200).order;
  return kidOf(order.tickets[0].signedCode);
}

test('a server started with --throw-deprecation starts and confirms, and prints no deprecation warning', async () => {
  const s = await shopWithTier(h, { capacity: 2 });
  const there = restClient(other.url, s.apiKey);
  const r = await reserveOne(there, s.tierId, 1);
  const order = must(await confirmWith(there, r.reservation.id, 'pm_sandbox_visa'), 200).order;
  assert.equal(order.tickets.length, 1);
  assert.equal(other.child.exitCode, null, 'the server is still running');
  assert.doesNotMatch(other.stderr(), /Deprecat|DEP\d{4}/);
});

test('a key rotated by another process signs the next ticket of this one, and the other way round', async () => {
  const s = await shopWithTier(h, { capacity: 10 });
  const here = s.api;
  const there = restClient(other.url, s.apiKey);
  const first = await ticketKid(here, s.tierId);
  assert.equal(await ticketKid(there, s.tierId), first, 'both processes sign with the one active key');

  const token = await h.staffToken();
  const rotatedThere = must(await restClient(other.url, token).post('/v1/staff/ticket-keys/rotate', {}), 200)
    .activeKid as string;
  assert.notEqual(rotatedThere, first);
  assert.equal(
    await ticketKid(here, s.tierId),
    rotatedThere,
    'this process signs with the key the other one activated',
  );

  const rotatedHere = must(await restClient(h.url, token).post('/v1/staff/ticket-keys/rotate', {}), 200)
    .activeKid as string;
  assert.equal(
    await ticketKid(there, s.tierId),
    rotatedHere,
    'the other process signs with the key this one activated',
  );
  assert.equal(await ticketKid(here, s.tierId), rotatedHere);

  const published = must(await restClient(h.url).get('/v1/ticketing/ticket-keys'), 200).keys.map(
    (k: { kid: string }) => k.kid,
  );
  for (const kid of [first, rotatedThere, rotatedHere]) assert.ok(published.includes(kid), `${kid} is published`);
});
