/**
 * `npm run conformance:ucp -- <reference dir>`: starts Tessera (embedded PostgreSQL, or DATABASE_URL), serves a
 * platform profile on loopback (with an order webhook receiver), drives the UCP checkout over the REST binding
 * (profile, catalog search and lookup, create, get, update, complete, cancel, a refund, Get Order) and validates UCP
 * response body and every order webhook body with Ajv (JSON Schema 2020-12) against the UCP 2026-04-08 schemas in
 * <reference dir> (its root, holding source/schemas and source/discovery). Protocol errors (`{ code, content }`) have
 * no schema in the release and are not counted. Prints one summary line; exits non-zero on any invalid body or a
 * broken flow.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'src', 'cli.ts');
/**
 * The profile schema's `$id` (…/schemas/discovery/profile.json) does not match where its relative `$ref`s
 * (../schemas/ucp.json) point from; it is loaded under the id its place in the release gives it.
 */
const PROFILE_ID = 'https://ucp.dev/discovery/profile.json';
const CHECKOUT_ID = 'https://ucp.dev/schemas/shopping/checkout.json';
const ORDER_ID = 'https://ucp.dev/schemas/shopping/order.json';
const ERROR_ID = 'https://ucp.dev/schemas/shopping/types/error_response.json';
const SEARCH_ID = 'https://ucp.dev/schemas/shopping/catalog_search.json#/$defs/search_response';
const LOOKUP_ID = 'https://ucp.dev/schemas/shopping/catalog_lookup.json#/$defs/lookup_response';
const DISCOUNT_CHECKOUT_ID = 'https://ucp.dev/schemas/shopping/discount.json#/$defs/dev.ucp.shopping.checkout';

/** Every JSON file under `dir`. */
function jsonFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return jsonFiles(path);
    return name.endsWith('.json') ? [path] : [];
  });
}

/** An Ajv holding every schema of the release (by its `$id`, so relative `$ref`s resolve). */
function validators(arg: string | undefined) {
  if (!arg) throw new Error('usage: npm run conformance:ucp -- <the UCP reference root, holding source/schemas>');
  const source = join(resolve(arg), 'source');
  if (!existsSync(join(source, 'schemas', 'shopping', 'checkout.json'))) throw new Error(`no UCP schemas in ${source}`);
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  for (const file of jsonFiles(join(source, 'schemas'))) {
    const schema = JSON.parse(readFileSync(file, 'utf8')) as { $id?: string };
    if (schema.$id) ajv.addSchema(schema);
  }
  const profile = JSON.parse(readFileSync(join(source, 'discovery', 'profile_schema.json'), 'utf8')) as object;
  ajv.addSchema({ ...profile, $id: PROFILE_ID });
  return (ref: string) => {
    const validate = ajv.getSchema(ref);
    if (!validate) throw new Error(`no schema ${ref}`);
    return validate;
  };
}

/** `tessera serve` on a free port; resolves with its URL. */
async function startServer(env: NodeJS.ProcessEnv): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [CLI, 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`the server did not start in 120 s: ${err.trim()}`)), 120_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Tessera is running at (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        ok(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`the server exited with ${code}: ${err.trim()}`));
    });
  });
  return { url, child };
}

interface Platform {
  url: string;
  /** The order webhook bodies received so far. */
  orders: unknown[];
  /** Resolves when `n` order webhooks have arrived (the server's dispatcher sends them within seconds). */
  waitForOrders(n: number): Promise<void>;
  close(): void;
}

/**
 * A platform on loopback: its profile declares checkout, order (with its webhook URL) and fulfillment (which the
 * business declines); POSTs to /orders are its order webhook receiver.
 */
async function platformProfile(): Promise<Platform> {
  const version = '2026-04-08';
  const orders: unknown[] = [];
  const server = createServer((req, res) => {
    const served = req.url === '/cart-only.json' ? cartOnly : body;
    if (req.method !== 'POST') return void res.writeHead(200, { 'content-type': 'application/json' }).end(served);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      orders.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ucp: { version } }));
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const body = JSON.stringify({
    ucp: {
      version,
      services: {},
      capabilities: {
        'dev.ucp.shopping.checkout': [{ version }],
        'dev.ucp.shopping.order': [{ version, config: { webhook_url: `${base}/orders` } }],
        'dev.ucp.shopping.fulfillment': [{ version }],
        'dev.ucp.shopping.catalog.search': [{ version }],
        'dev.ucp.shopping.catalog.lookup': [{ version }],
      },
      payment_handlers: {},
    },
  });
  // A platform with no capability in common (for the capabilities_incompatible envelope).
  const cartOnly = JSON.stringify({
    ucp: { version, services: {}, capabilities: { 'dev.ucp.shopping.cart': [{ version }] }, payment_handlers: {} },
  });
  const waitForOrders = async (n: number) => {
    for (let i = 0; i < 600 && orders.length < n; i++) await new Promise((ok) => setTimeout(ok, 100));
    if (orders.length < n) throw new Error(`expected ${n} order webhook(s) within 60 s, got ${orders.length}`);
  };
  return { url: `${base}/profile.json`, orders, waitForOrders, close: () => server.close() };
}

async function call(url: string, method: string, path: string, want: number, body: unknown, headers: object) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID(), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== want)
    throw new Error(`${method} ${path}: expected ${want}, got ${res.status}: ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : undefined;
}

async function main(): Promise<number> {
  const validator = validators(process.argv[2]);
  const dataDir = process.env.DATABASE_URL ? undefined : mkdtempSync(join(tmpdir(), 'tessera-ucp-conformance-'));
  if (dataDir) chmodSync(dataDir, 0o755);
  const env = {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '100000',
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    ...(dataDir ? { TESSERA_DATA_DIR: dataDir } : {}),
  };
  const platform = await platformProfile();
  let server: ChildProcess | undefined;
  let valid = 0;
  let invalid = 0;
  const check = (ref: string, body: unknown, label: string) => {
    const validate = validator(ref);
    if (validate(body)) return void valid++;
    invalid++;
    process.stderr.write(`invalid ${ref} — ${label}: ${JSON.stringify(validate.errors?.slice(0, 5))}\n`);
  };
  try {
    const started = await startServer(env);
    server = started.child;
    const args = ['bootstrap', '--org', 'UCP Conformance', '--email', `ucp-${randomUUID()}@example.test`];
    const boot = spawnSync(process.execPath, [CLI, ...args, '--shop', 'UCP Shop', '--currency', 'USD', '--json'], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    if (boot.status !== 0) throw new Error(`bootstrap failed: ${boot.stderr.trim()}`);
    const { apiKey, shopId } = JSON.parse(boot.stdout) as { apiKey: string; shopId: string };
    const auth = { authorization: `Bearer ${apiKey}` };
    const rest = (path: string, body: unknown) => call(started.url, 'POST', path, 201, body, auth);
    const startsAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const event = await rest('/v1/integration/events', { merchantId: shopId, title: 'UCP Night', startsAt });
    const pool = await rest('/v1/integration/pools', { merchantId: shopId, eventId: event.id, capacity: 10 });
    const tier = await rest('/v1/integration/tiers', {
      eventId: event.id,
      poolId: pool.id,
      name: 'Floor',
      priceMinor: 2500,
    });

    const profile = await call(started.url, 'GET', '/.well-known/ucp', 200, undefined, {});
    check(`${PROFILE_ID}#/$defs/business_profile`, profile, 'the business profile');
    const endpoint = new URL(profile.ucp.services['dev.ucp.shopping'][0].endpoint).pathname;
    const handler = Object.values(profile.ucp.payment_handlers as Record<string, { id: string }[]>)[0]![0]!.id;
    const ucp = (method: string, path: string, want: number, body?: unknown) =>
      call(started.url, method, `${endpoint}/checkout-sessions${path}`, want, body, {
        ...auth,
        'ucp-agent': `profile="${platform.url}"`,
      });
    const items = (quantity: number) => ({ line_items: [{ item: { id: tier.id }, quantity }] });
    // The catalog (the shop made discoverable): search, then lookup by the event and the tier.
    await call(started.url, 'PATCH', `/v1/integration/shops/${shopId}`, 200, { discoverable: true }, auth);
    const catalog = (path: string, body: unknown) =>
      call(started.url, 'POST', `${endpoint}/catalog/${path}`, 200, body, { 'ucp-agent': `profile="${platform.url}"` });
    const found = await catalog('search', { query: 'UCP Night' });
    if (found.products.length !== 1) throw new Error(`search found ${found.products.length} products`);
    check(SEARCH_ID, found, 'catalog search');
    check(LOOKUP_ID, await catalog('lookup', { ids: [event.id, tier.id] }), 'catalog lookup');
    const created = await ucp('POST', '', 201, { ...items(2), buyer: { email: 'ada@example.test' } });
    check(CHECKOUT_ID, created, 'create (ready_for_complete)');
    check(CHECKOUT_ID, await ucp('GET', `/${created.id}`, 200), 'get');
    check(CHECKOUT_ID, await ucp('PUT', `/${created.id}`, 200, items(20)), 'update beyond the pool (incomplete)');
    check(CHECKOUT_ID, await ucp('PUT', `/${created.id}`, 200, items(1)), 'update (ready_for_complete)');
    const pay = (token: string) => ({
      payment: {
        instruments: [{ id: 'ins_1', handler_id: handler, type: 'card', credential: { type: 'sandbox_token', token } }],
      },
    });
    check(CHECKOUT_ID, await ucp('POST', `/${created.id}/complete`, 200, pay('pm_sandbox_declined')), 'declined');
    const done = await ucp('POST', `/${created.id}/complete`, 200, pay('pm_sandbox_visa'));
    if (done.status !== 'completed') throw new Error(`complete answered ${done.status}`);
    check(CHECKOUT_ID, done, 'complete (completed, with the order)');
    const other = await ucp('POST', '', 201, items(1));
    check(CHECKOUT_ID, await ucp('POST', `/${other.id}/cancel`, 200), 'cancel');
    // The discount extension: a session with a merchant's code (applied), then an unknown one (a warning).
    await rest('/v1/integration/discount-codes', {
      merchantId: shopId,
      code: 'UCP10',
      kind: 'percent',
      percentOff: 10,
    });
    const coded = await ucp('POST', '', 201, { ...items(1), discounts: { codes: ['ucp10'] } });
    if (coded.discounts?.applied?.length !== 1) throw new Error('the discount code was not applied');
    check(DISCOUNT_CHECKOUT_ID, coded, 'create with a discount code (applied)');
    const unknown = { ...items(1), discounts: { codes: ['NOPE'] } };
    check(DISCOUNT_CHECKOUT_ID, await ucp('PUT', `/${coded.id}`, 200, unknown), 'update with an unknown code');
    await ucp('POST', `/${coded.id}/cancel`, 200);
    await platform.waitForOrders(1);
    check(ORDER_ID, platform.orders[0], 'order webhook (placed)');
    const order = await call(started.url, 'GET', `/v1/ticketing/orders/${done.order.id}`, 200, undefined, auth);
    const refund = { ticketIds: [order.tickets[0].id], reason: 'Cannot attend', returnToPool: true };
    await call(started.url, 'POST', `/v1/ticketing/orders/${done.order.id}/refunds`, 200, refund, auth);
    await platform.waitForOrders(2);
    check(ORDER_ID, platform.orders[1], 'order webhook (refunded)');
    const agent = { ...auth, 'ucp-agent': `profile="${platform.url}"` };
    const got = await call(started.url, 'GET', `${endpoint}/orders/${done.order.id}`, 200, undefined, agent);
    check(ORDER_ID, got, 'get order (refunded)');
    const cartOnly = { ...auth, 'ucp-agent': `profile="${platform.url.replace('/profile.json', '/cart-only.json')}"` };
    const envelope = await call(started.url, 'POST', `${endpoint}/checkout-sessions`, 200, items(1), cartOnly);
    check(ERROR_ID, envelope, 'capabilities_incompatible (200 envelope)');
  } finally {
    if (server && server.exitCode === null) {
      const exited = new Promise((ok) => server!.once('exit', ok));
      server.kill('SIGTERM');
      await exited;
    }
    platform.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
  process.stdout.write(`ucp conformance: ${valid} bodies valid, ${invalid} invalid\n`);
  return invalid === 0 && valid > 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`ucp conformance: ${(err as Error).message}\n`);
    process.exit(2);
  },
);
